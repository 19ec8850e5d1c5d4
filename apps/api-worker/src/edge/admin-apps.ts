import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { requireReseller } from '../auth.ts'
import type { EdgeApp } from '../data/edge-apps.ts'
import type { ApiEnv } from '../env.ts'
import { formatIso } from '../lib/dates.ts'
import {
  containsText,
  int64,
  integer,
  orderingKey,
  orderingValues,
  paginate,
  type SortKey,
  sortBy,
} from '../lib/query.ts'
import { validationHook } from '../lib/validation.ts'
import { EdgeErrors, ok } from '../schemas.ts'

const ORDER_FIELDS = {
  name: (a: EdgeApp) => a.name,
  status: (a: EdgeApp) => a.status,
  id: (a: EdgeApp) => a.id,
  template: (a: EdgeApp) => a.template,
  binary: (a: EdgeApp) => a.binary,
  plan: (a: EdgeApp) => a.plan_id,
  client: (a: EdgeApp) => a.client_id,
} satisfies Record<string, SortKey<EdgeApp>>
const ORDERINGS = orderingValues(ORDER_FIELDS)

const App = z
  .object({
    id: z.number().int(),
    name: z.string(),
    status: z.number().int().min(0).max(5).openapi({
      description: '0 draft, 1 enabled, 2 disabled, 3 hourly limit, 4 daily limit, 5 suspended',
    }),
    binary: z.number().int(),
    api_type: z.enum(['wasi-http', 'proxy-wasm']),
    plan_id: z.number().int(),
    plan: z.string(),
    client_id: z.number().int(),
    reseller_id: z.number().int(),
    url: z.string(),
    comment: z.string(),
    debug_until: z.string(),
    template: z.number().int(),
    template_name: z.string(),
    networks: z.array(z.string()),
    upgradeable_to: z.number().int(),
  })
  .openapi('EdgeApp')

/** Edge apps admin API: `GET /edge/v1/admin/apps` (4.6), reseller credential only, errors `{error}`. */
export const edge = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })

edge.use('/v1/admin/*', requireReseller)

edge.openapi(
  createRoute({
    method: 'get',
    path: '/v1/admin/apps',
    operationId: 'listAdminEdgeApps',
    tags: ['Edge apps'],
    summary: 'List apps across all clients, with filters',
    request: {
      query: z.object({
        client_id: int64({ min: 1 }).optional(),
        name: z
          .string()
          .min(1)
          .max(255, 'Ensure this field has no more than 255 characters.')
          .optional(),
        api_type: z.enum(['wasi-http', 'proxy-wasm']).optional(),
        status: integer({ min: 0, max: 5 }).optional(),
        template: int64({ min: 1 }).optional(),
        binary: int64({ min: 1 }).optional(),
        plan: int64({ min: 1 }).optional(),
        limit: integer({ min: 1, max: 1000 }).optional(),
        offset: integer({ min: 0 }).optional(),
        ordering: z.enum(ORDERINGS).optional(),
      }),
    },
    responses: {
      200: ok('Apps', z.object({ apps: z.array(App), count: z.number().int() })),
      ...EdgeErrors,
    },
  }),
  function listAdminEdgeApps(c) {
    const q = c.req.valid('query')
    let apps = c.get('data').edgeApps
    if (q.client_id !== undefined) apps = apps.filter((a) => a.client_id === q.client_id)
    if (q.name !== undefined) apps = apps.filter((a) => containsText(a.name, q.name ?? ''))
    if (q.api_type) apps = apps.filter((a) => a.api_type === q.api_type)
    if (q.status !== undefined) apps = apps.filter((a) => a.status === q.status)
    if (q.template !== undefined) apps = apps.filter((a) => a.template === q.template)
    if (q.binary !== undefined) apps = apps.filter((a) => a.binary === q.binary)
    if (q.plan !== undefined) apps = apps.filter((a) => a.plan_id === q.plan)
    apps = sortBy(apps, [orderingKey(q.ordering ?? 'id', ORDER_FIELDS), [(a) => a.id, 'asc']])
    const page = paginate(apps, { limit: q.limit ?? 50, offset: q.offset ?? 0 })
    return c.json(
      {
        apps: page.map((a) => ({ ...a, debug_until: formatIso(a.debug_until) })),
        count: apps.length,
      },
      200,
    )
  },
)
