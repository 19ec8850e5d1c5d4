import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { apiConfig } from '../config.ts'
import { createRng, hash32 } from '../data/rng.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { validationHook } from '../lib/validation.ts'
import { CloudErrors, ok } from '../schemas.ts'
import { stateOf } from '../state/state-access.ts'

/**
 * A DNS name: labels of 1–63 letters, digits and inner hyphens, 253 characters at most, optional
 * final dot. The top-level label is 2–63 letters or an IDNA A-label (`xn--` then letters, digits
 * and inner hyphens, 63 at most: `xn--p1ai`, the Cyrillic .рф), as every internationalized TLD
 * is written in the DNS.
 */
const ZONE =
  /^(?=.{1,253}\.?$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?:[A-Za-z]{2,63}|[Xx][Nn]--[A-Za-z0-9-]{0,58}[A-Za-z0-9])\.?$/

const SERVICE_NS = ['ns1.edge-dns.net', 'ns2.edge-dns.org']
const OTHER_NS = [
  'ns-1024.awsdns-00.org',
  'ns1.cloudns.example',
  'dns1.registrar-servers.example',
  'ns3.hostingco.example',
]

const NameServer = z.object({
  name: z.string(),
  ipv4Addresses: z.array(z.string()),
  ipv6Addresses: z.array(z.string()),
})
const Delegation = z
  .object({
    authoritative_name_servers: z.array(NameServer),
    service_authorized_count: z.number().int(),
    non_service_authorized_count: z.number().int(),
    is_whitelabel_delegation: z.boolean(),
    zone_exists: z.boolean(),
  })
  .openapi('DelegationStatus')

/**
 * The delegation status of a zone (spec 2.5): deterministic per (lower-cased) name, so the same
 * zone always answers the same. Zones under `.invalid` never exist.
 *
 * @example
 * ```ts
 * delegationOf('example.com').zone_exists // the same on every call and isolate
 * ```
 */
export function delegationOf(zone: string) {
  const name = zone.toLowerCase().replace(/\.$/, '')
  const rng = createRng(hash32(name))
  const exists = !name.endsWith('.invalid') && rng.chance(0.75)
  const service = exists ? rng.int(0, 2) : 0
  const others = exists ? rng.int(service === 2 ? 0 : 1, 2) : 0
  const servers = [...SERVICE_NS.slice(0, service), ...rng.sample(OTHER_NS, others)].map((ns) => ({
    name: ns,
    ipv4Addresses: [`${rng.int(1, 223)}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`],
    ipv6Addresses: rng.chance(0.7)
      ? [`2001:db8:${rng.int(1, 0xffff).toString(16)}::${rng.int(1, 0xff).toString(16)}`]
      : [],
  }))
  return {
    authoritative_name_servers: servers,
    service_authorized_count: service,
    non_service_authorized_count: others,
    is_whitelabel_delegation: service > 0 && others === 0 && rng.chance(0.3),
    zone_exists: exists,
  }
}

/** Managed DNS: `GET /dns/v2/analyze/{name}/delegation-status` (4.5), rate limited per credential. */
export const dns = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/v2/analyze/{name}/delegation-status',
    operationId: 'getDnsDelegationStatus',
    tags: ['DNS'],
    summary: 'Delegation status of a zone (rate limited: DNS_RATE_LIMIT per credential)',
    request: {
      params: z.object({
        name: z.string().regex(ZONE, 'Enter a valid domain name, e.g. example.com.'),
      }),
    },
    responses: {
      200: ok('Delegation status', Delegation),
      429: { description: 'Rate limited; see Retry-After', content: CloudErrors[400].content },
      ...CloudErrors,
    },
  }),
  async function getDnsDelegationStatus(c) {
    const { limit, windowMs } = apiConfig(c.env).dnsRateLimit
    const { allowed, retryAfterSeconds } = await stateOf(c.env).hit(
      `dns:${c.get('principal').label}`,
      limit,
      windowMs,
    )
    c.header('X-RateLimit-Limit', String(limit))
    if (!allowed) {
      throw new ApiError(
        429,
        `Request was throttled. Expected available in ${retryAfterSeconds} seconds.`,
        undefined,
        {
          'Retry-After': String(retryAfterSeconds),
        },
      )
    }
    return c.json(delegationOf(c.req.valid('param').name), 200)
  },
)
