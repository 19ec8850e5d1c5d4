import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { normalizeIp } from '@proj/signing'
import { owns } from '../auth.ts'
import {
  WAAP_DECISIONS,
  WAAP_DOMAIN_STATUSES,
  WAAP_METHODS,
  WAAP_OPTIONAL_ACTIONS,
  type WaapDomain,
  type WaapEvent,
  waapDetails,
} from '../data/waap.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { formatIso } from '../lib/dates.ts'
import { globMatcher } from '../lib/glob.ts'
import {
  commaList,
  dateTime,
  integer,
  orderingKey,
  orderingValues,
  paginate,
  type SortKey,
  sortBy,
} from '../lib/query.ts'
import { validationHook } from '../lib/validation.ts'
import { CloudErrors, offsetPage, ok } from '../schemas.ts'

/** Request history kept (spec 6.3): a `start` before this is treated as the window's start. */
export const RETENTION_MS = 30 * 86_400_000

/** Whether an event is older than the request history keeps ({@link RETENTION_MS}) at `now`. */
const retired = (event: WaapEvent, now: number) => event.request_time < now - RETENTION_MS

const EventSchema = z
  .object({
    id: z.string(),
    decision: z.enum(WAAP_DECISIONS),
    action: z.string(),
    optional_action: z.string(),
    client_ip: z.string(),
    country: z.string(),
    domain: z.string(),
    domain_id: z.number().int(),
    method: z.enum(WAAP_METHODS),
    path: z.string(),
    rule_name: z.string(),
    status_code: z.number().int(),
    request_time: z.number().int().openapi({ description: 'Unix time in milliseconds' }),
    reference_id: z.string(),
    session_id: z.string(),
  })
  .openapi('WaapRequest')

const DetailsSchema = z
  .object({
    id: z.string(),
    path: z.string(),
    method: z.enum(WAAP_METHODS),
    action: z.string(),
    decision: z.enum(WAAP_DECISIONS),
    optional_action: z.string().openapi({ description: 'Empty string when none' }),
    rule_id: z.string(),
    rule_name: z.string(),
    pattern_matched_tags: z.array(z.string()),
    common_tags: z.array(z.string()),
    traffic_types: z.array(z.string()),
    user_agent: z.object({ raw: z.string(), device: z.string(), client: z.string() }),
    network: z.object({ ip: z.string(), organization: z.string() }),
    request_time: z.string().openapi({ description: 'ISO 8601' }),
    reference_id: z.string(),
    session_id: z.string(),
    query_string: z.string(),
    http_status_code: z.number().int(),
    http_version: z.string(),
    scheme: z.string(),
    content_type: z.string(),
    response_time: z.string().openapi({ example: '42ms' }),
    incident_id: z.string().openapi({ description: 'Empty string when no challenge was issued' }),
    request_headers: z.record(z.string(), z.string()),
  })
  .openapi('WaapRequestDetails')

const DomainSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    status: z.enum(WAAP_DOMAIN_STATUSES),
    created_at: z.string(),
  })
  .openapi('WaapDomain')

const DOMAIN_ORDER: Record<string, SortKey<WaapDomain>> = {
  id: (d) => d.id,
  name: (d) => d.name,
  status: (d) => d.status,
  created_at: (d) => d.created_at,
}
const DOMAIN_ORDERINGS = orderingValues(DOMAIN_ORDER)

const ids = commaList(z.string().min(1).max(64))

/**
 * One client IP of the `ips` filter: a real IPv4 or IPv6 address (not any run of hex digits, dots
 * and colons: `aa` was one), in the form the log records it (IPv6 lower case, shortest), so
 * `2001:DB8:0::1` finds what `2001:db8::1` finds.
 */
const ipAddress = () =>
  z
    .string()
    .transform((text, ctx) => {
      // 45: the longest address text (`ffff:…:ffff:255.255.255.255`); longer is not parsed at all
      const ip = text.length <= 45 ? normalizeIp(text) : undefined
      if (ip === undefined) {
        ctx.addIssue({ code: 'custom', message: 'Enter a valid IPv4 or IPv6 address.' })
        return z.NEVER
      }
      return ip
    })
    .openapi({ type: 'string', description: 'An IPv4 or IPv6 address' })

/** WAAP: the request log (4.11), one request's details (4.12) and the domains (4.13). */
export const waap = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(
    createRoute({
      method: 'get',
      path: '/v1/analytics/requests',
      operationId: 'listWaapRequests',
      tags: ['WAAP'],
      summary: 'Request log across all domains, newest first (30 days kept)',
      request: {
        query: z.object({
          start: dateTime().openapi({
            description:
              'Required. A start older than 30 days is treated as 30 days ago; without `end`, a start in the future is a 400.',
          }),
          end: dateTime().optional().openapi({ description: 'Default: now' }),
          domains: commaList(integer({ min: 1 })),
          decision: commaList(z.enum(WAAP_DECISIONS)),
          optional_action: commaList(z.enum(WAAP_OPTIONAL_ACTIONS)),
          ips: commaList(ipAddress()),
          countries: commaList(
            z.string().regex(/^[A-Za-z]{2}$/, 'Use ISO 3166-1 alpha-2 country codes.'),
          ),
          path: z
            .string()
            .min(1)
            .max(2048)
            .optional()
            .openapi({ description: 'Glob: * any run, ? one character' }),
          http_methods: commaList(z.enum(WAAP_METHODS)),
          status_codes: commaList(integer({ min: 100, max: 599 })),
          request_ids: ids,
          reference_ids: ids,
          session_ids: ids,
          limit: integer({ min: 1, max: 100 }).optional(),
          offset: integer({ min: 0 }).optional(),
        }),
      },
      responses: {
        200: ok('A page of requests', offsetPage(EventSchema)),
        ...CloudErrors,
      },
    }),
    function listWaapRequests(c) {
      const q = c.req.valid('query')
      const now = Date.now()
      // Name the parameter the caller sent: with no `end`, a future `start` is the one at fault.
      if (q.end === undefined && q.start > now)
        throw ApiError.validation({ start: ['Must not be in the future (end defaults to now).'] })
      const end = q.end ?? now
      if (end < q.start) throw ApiError.validation({ end: ['Must not be earlier than start.'] })
      const start = Math.max(q.start, now - RETENTION_MS)
      const path = q.path ? globMatcher(q.path) : undefined
      const countries = q.countries?.map((code) => code.toUpperCase())
      const { waapDomainOwner } = c.get('data')
      const principal = c.get('principal')
      const keep = (e: WaapEvent) =>
        // "across all domains of the account" (4.11): another client's domains are not there
        owns(principal, waapDomainOwner.get(e.domain_id) ?? -1) &&
        e.request_time >= start &&
        e.request_time <= end &&
        (!q.domains || q.domains.includes(e.domain_id)) &&
        (!q.decision || q.decision.includes(e.decision)) &&
        (!q.optional_action ||
          (e.optional_action !== '' && q.optional_action.includes(e.optional_action))) &&
        (!q.ips || q.ips.includes(e.client_ip)) &&
        (!countries || countries.includes(e.country)) &&
        (!path || path(e.path)) &&
        (!q.http_methods || q.http_methods.includes(e.method)) &&
        (!q.status_codes || q.status_codes.includes(e.status_code)) &&
        (!q.request_ids || q.request_ids.includes(e.id)) &&
        (!q.reference_ids || q.reference_ids.includes(e.reference_id)) &&
        (!q.session_ids || q.session_ids.includes(e.session_id))
      const events = c.get('data').waapEvents.filter(keep)
      const limit = q.limit ?? 100
      const offset = q.offset ?? 0
      return c.json(
        { count: events.length, limit, offset, results: paginate(events, { limit, offset }) },
        200,
      )
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/v1/domains/{domain_id}/requests/{request_id}/details',
      operationId: 'getWaapRequestDetails',
      tags: ['WAAP'],
      summary: "One request's details (the list record's id and domain_id; 30 days kept)",
      request: {
        params: z.object({ domain_id: integer({ min: 1 }), request_id: z.string().min(1).max(64) }),
      },
      responses: {
        200: ok('Details', DetailsSchema),
        404: {
          description: 'No such request on this domain, or older than 30 days',
          content: CloudErrors[400].content,
        },
        ...CloudErrors,
      },
    }),
    function getWaapRequestDetails(c) {
      const { domain_id, request_id } = c.req.valid('param')
      const { waapEventsById, waapDomainOwner } = c.get('data')
      const event = waapEventsById.get(request_id)
      // Past the retention (4.11, 6.3) a request is gone for the details too, as for the list;
      // another client's request does not exist for this caller (the same 404, nothing confirmed).
      if (
        !event ||
        event.domain_id !== domain_id ||
        !owns(c.get('principal'), waapDomainOwner.get(domain_id) ?? -1) ||
        retired(event, Date.now())
      )
        throw new ApiError(404, `Request ${request_id} not found on domain ${domain_id}.`)
      return c.json(waapDetails(event), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/v1/domains',
      operationId: 'listWaapDomains',
      tags: ['WAAP'],
      summary: 'List protected domains and their IDs',
      request: {
        query: z.object({
          ids: commaList(integer({ min: 1 })),
          name: z
            .string()
            .min(1)
            .max(255)
            .optional()
            .openapi({ description: 'Case-insensitive; * is a wildcard' }),
          status: commaList(z.enum(WAAP_DOMAIN_STATUSES)),
          limit: integer({ min: 1, max: 100 }).optional(),
          offset: integer({ min: 0 }).optional(),
          ordering: z.enum(DOMAIN_ORDERINGS).optional(),
        }),
      },
      responses: {
        200: ok('Domains', offsetPage(DomainSchema)),
        ...CloudErrors,
      },
    }),
    function listWaapDomains(c) {
      const q = c.req.valid('query')
      const name = q.name
        ? globMatcher(q.name.includes('*') ? q.name : `*${q.name}*`, { caseInsensitive: true })
        : undefined
      let domains = c
        .get('data')
        .waapDomains.filter(
          (d) =>
            owns(c.get('principal'), d.client_id) &&
            (!q.ids || q.ids.includes(d.id)) &&
            (!name || name(d.name)) &&
            (!q.status || q.status.includes(d.status)),
        )
      domains = sortBy(domains, [orderingKey(q.ordering ?? 'id', DOMAIN_ORDER)])
      const limit = q.limit ?? 100
      const offset = q.offset ?? 0
      return c.json(
        {
          limit,
          offset,
          count: domains.length,
          results: paginate(domains, { limit, offset }).map(({ client_id: _owner, ...d }) => ({
            ...d,
            created_at: formatIso(d.created_at),
          })),
        },
        200,
      )
    },
  )
