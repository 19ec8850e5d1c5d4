import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { requireReseller } from '../auth.ts'
import { LIMIT_REQUEST_STATUSES, type LimitRequest } from '../data/limit-requests.ts'
import type { ApiEnv } from '../env.ts'
import { ApiError } from '../errors.ts'
import { formatNaive, formatZulu } from '../lib/dates.ts'
import { commaList, dateTime, integer, paginate, repeated, sortBy } from '../lib/query.ts'
import { validationHook } from '../lib/validation.ts'
import { CloudErrors, ok } from '../schemas.ts'

const LimitRequestSchema = z
  .object({
    id: z.number().int(),
    client_id: z.number().int(),
    status: z.enum(LIMIT_REQUEST_STATUSES),
    description: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    requested_limits: z.object({
      global_limits: z.record(z.string(), z.number()),
      regional_limits: z.array(z.record(z.string(), z.number())),
    }),
  })
  .openapi('LimitRequest')
const ListSchema = z.object({ count: z.number().int(), results: z.array(LimitRequestSchema) })

const page = {
  limit: integer({ min: 1, max: 1000 }).optional(),
  offset: integer({ min: 0 }).optional(),
}
const status = repeated(z.enum(LIMIT_REQUEST_STATUSES))

const out = (format: (ms: number) => string) => (request: LimitRequest) => ({
  ...request,
  created_at: format(request.created_at),
  updated_at: format(request.updated_at),
})
/** Newest first, one page, dates in the version's format. */
const listBody = (
  items: LimitRequest[],
  { limit = 1000, offset = 0 }: { limit?: number | undefined; offset?: number | undefined },
  format: (ms: number) => string,
) => {
  const sorted = sortBy(items, [
    [(r) => r.created_at, 'desc'],
    [(r) => r.id, 'desc'],
  ])
  return { count: sorted.length, results: paginate(sorted, { limit, offset }).map(out(format)) }
}

/** Quota limit requests: the reseller's review list (v1, 4.3) and the caller's own (v2, 4.4). */
export const limitRequests = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })

limitRequests.use('/reseller/*', requireReseller)

limitRequests
  .openapi(
    createRoute({
      method: 'get',
      path: '/reseller/v1/limits_request',
      operationId: 'listResellerLimitRequests',
      tags: ['Cloud reseller'],
      summary: "List quota limit requests of the reseller's clients (dates with Z), newest first",
      request: { query: z.object({ client_id: integer({ min: 1 }).optional(), status, ...page }) },
      responses: {
        200: ok('Limit requests', ListSchema),
        ...CloudErrors,
      },
    }),
    function listResellerLimitRequests(c) {
      const q = c.req.valid('query')
      let items = c.get('data').limitRequests
      if (q.client_id !== undefined) items = items.filter((r) => r.client_id === q.client_id)
      if (q.status) items = items.filter((r) => q.status?.includes(r.status))
      return c.json(listBody(items, q, formatZulu), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/v2/limits_request',
      operationId: 'listLimitRequests',
      tags: ['Cloud'],
      summary: 'List the quota limit requests this account sent (dates without zone), newest first',
      request: {
        query: z.object({
          created_from: dateTime().optional(),
          created_to: dateTime().optional(),
          request_ids: commaList(integer({ min: 1 })),
          status,
          ...page,
        }),
      },
      responses: {
        200: ok('Limit requests', ListSchema),
        ...CloudErrors,
      },
    }),
    function listLimitRequests(c) {
      const q = c.req.valid('query')
      if (
        q.created_from !== undefined &&
        q.created_to !== undefined &&
        q.created_from > q.created_to
      ) {
        throw ApiError.validation({ created_to: ['Must not be earlier than created_from.'] })
      }
      const { clientId } = c.get('principal')
      let items = c.get('data').limitRequests.filter((r) => r.client_id === clientId)
      // Inclusive on both ends, at second precision (the precision of the returned dates).
      if (q.created_from !== undefined)
        items = items.filter((r) => Math.floor(r.created_at / 1000) * 1000 >= (q.created_from ?? 0))
      if (q.created_to !== undefined)
        items = items.filter((r) => Math.floor(r.created_at / 1000) * 1000 <= (q.created_to ?? 0))
      if (q.request_ids) items = items.filter((r) => q.request_ids?.includes(r.id))
      if (q.status) items = items.filter((r) => q.status?.includes(r.status))
      return c.json(listBody(items, q, formatNaive), 200)
    },
  )
