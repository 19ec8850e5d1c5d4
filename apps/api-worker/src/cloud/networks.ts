import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import type { Network, Subnet } from '../data/networks.ts'
import type { ApiEnv, Principal } from '../env.ts'
import { formatOffset } from '../lib/dates.ts'
import {
  boolean,
  containsText,
  integer,
  paginate,
  repeated,
  type SortKey,
  sortBy,
  uuid,
} from '../lib/query.ts'
import { TAG_KEY, tagMapJson } from '../lib/tags.ts'
import { validationHook } from '../lib/validation.ts'
import { CloudErrors, ok } from '../schemas.ts'
import { projectVisible } from './projects.ts'

const Tag = z.object({ key: z.string(), value: z.string(), read_only: z.boolean() })
const common = {
  project_id: z.number().int().nullable(),
  region_id: z.number().int(),
  region: z.string(),
  created_at: z.string().openapi({ example: '2026-11-20T10:15:30+0000' }),
  updated_at: z.string(),
  creator_task_id: z.string().nullable(),
  task_id: z.string().nullable(),
  tags: z.array(Tag),
}
const SubnetSchema = z
  .object({
    id: z.string(),
    network_id: z.string(),
    name: z.string(),
    ip_version: z.union([z.literal(4), z.literal(6)]),
    cidr: z.string(),
    enable_dhcp: z.boolean(),
    gateway_ip: z.string().nullable(),
    dns_nameservers: z.array(z.string()).nullable(),
    host_routes: z.array(z.object({ destination: z.string(), nexthop: z.string() })).nullable(),
    available_ips: z.number().int().nullable(),
    total_ips: z.number().int().nullable(),
    has_router: z.literal(false).openapi({ deprecated: true }),
    ...common,
  })
  .openapi('Subnet')
const NetworkSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(['vlan', 'vxlan']),
    mtu: z.number().int(),
    external: z.boolean(),
    default: z.boolean().nullable(),
    shared: z.boolean(),
    port_security_enabled: z.boolean(),
    segmentation_id: z.number().int().nullable(),
    subnets: z.array(SubnetSchema),
    ...common,
  })
  .openapi('Network')

const ORDER = [
  'created_at.asc',
  'created_at.desc',
  'name.asc',
  'name.desc',
  'priority.desc',
] as const

const Query = z.object({
  external: boolean().optional(),
  shared: boolean().optional(),
  limit: integer({ min: 1, max: 1000 }).optional(),
  offset: integer({ min: 0 }).optional(),
  name: z.string().max(61, 'Ensure this field has no more than 61 characters.').optional(),
  network_id: uuid().optional(),
  network_type: z.enum(['vlan', 'vxlan']).optional(),
  order_by: z.enum(ORDER).optional(),
  tag_key: repeated(
    z.string().regex(TAG_KEY, 'Tag keys are 1 to 255 characters without whitespace or "=".'),
  ),
  tag_key_value: tagMapJson().optional(),
})

const subnetOut = (subnet: Subnet) => ({
  ...subnet,
  created_at: formatOffset(subnet.created_at),
  updated_at: formatOffset(subnet.updated_at),
})
const networkOut = ({ priority: _priority, ...network }: Network) => ({
  ...network,
  created_at: formatOffset(network.created_at),
  updated_at: formatOffset(network.updated_at),
  subnets: network.subnets.map(subnetOut),
})

const orderKeys: Record<
  (typeof ORDER)[number],
  readonly (readonly [SortKey<Network>, 'asc' | 'desc'])[]
> = {
  'created_at.asc': [[(n) => n.created_at, 'asc']],
  'created_at.desc': [[(n) => n.created_at, 'desc']],
  'name.asc': [[(n) => n.name, 'asc']],
  'name.desc': [[(n) => n.name, 'desc']],
  'priority.desc': [
    [(n) => n.priority, 'desc'],
    [(n) => n.name, 'asc'],
  ],
}

const SUCCESSOR = (projectId: number, regionId: number) =>
  `/cloud/v1/networks/${projectId}/${regionId}?owned_by=any`

type NetworkQuery = z.infer<typeof Query>
type ListBody = { count: number; results: ReturnType<typeof networkOut>[] }

/**
 * The networks of a region visible to a project, filtered, ordered and paged as 4.1 describes:
 * its own (`owned_by=project`), or also the shared ones it can attach (`any`).
 */
const listNetworks = (
  all: readonly Network[],
  { project_id, region_id }: { project_id: number; region_id: number },
  q: NetworkQuery,
  ownedBy: 'project' | 'any',
): ListBody => {
  let items = all.filter(
    (n) =>
      n.region_id === region_id && (n.project_id === project_id || (ownedBy === 'any' && n.shared)),
  )
  if (q.external !== undefined) items = items.filter((n) => n.external === q.external)
  if (q.shared !== undefined) items = items.filter((n) => n.shared === q.shared)
  if (q.name !== undefined) items = items.filter((n) => containsText(n.name, q.name ?? ''))
  if (q.network_type) items = items.filter((n) => n.type === q.network_type)
  if (q.network_id) items = items.filter((n) => n.id === q.network_id)
  for (const key of q.tag_key ?? []) items = items.filter((n) => n.tags.some((t) => t.key === key))
  for (const [key, value] of Object.entries(q.tag_key_value ?? {}))
    items = items.filter((n) => n.tags.some((t) => t.key === key && t.value === value))
  items = sortBy(items, orderKeys[q.order_by ?? 'created_at.asc'])
  return {
    count: items.length,
    results: paginate(items, { limit: q.limit ?? 1000, offset: q.offset ?? 0 }).map(networkOut),
  }
}

/** The networks a caller may list in `projectId`: another client's project has none of its own. */
const visibleNetworks = (principal: Principal, all: readonly Network[], projectId: number) =>
  projectVisible(principal, projectId) ? all : all.filter((n) => n.project_id !== projectId)

const Params = z.object({ project_id: integer({ min: 1 }), region_id: integer({ min: 1 }) })
const ListSchema = z.object({ count: z.number().int().min(0), results: z.array(NetworkSchema) })

/**
 * `GET /cloud/v1/availablenetworks/{project_id}/{region_id}` (spec 4.1, deprecated): networks
 * the project can attach in the region (its own and shared ones), with subnets. Answers with
 * `Deprecation` and a `Link` to the successor, which is served too:
 * `GET /cloud/v1/networks/{project_id}/{region_id}?owned_by=any|project` (same data and filters).
 */
export const networks = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(
    createRoute({
      method: 'get',
      path: '/v1/availablenetworks/{project_id}/{region_id}',
      operationId: 'listAvailableNetworks',
      tags: ['Cloud'],
      deprecated: true,
      summary:
        'List directly attachable networks with subnets (deprecated: use /v1/networks?owned_by=any)',
      request: { params: Params, query: Query },
      responses: {
        200: {
          description: 'Networks',
          headers: z.object({ Deprecation: z.string(), Link: z.string() }),
          content: { 'application/json': { schema: ListSchema } },
        },
        ...CloudErrors,
      },
    }),
    function listAvailableNetworks(c) {
      const params = c.req.valid('param')
      c.header('Deprecation', 'true')
      c.header(
        'Link',
        `<${SUCCESSOR(params.project_id, params.region_id)}>; rel="successor-version"`,
      )
      const all = visibleNetworks(c.get('principal'), c.get('data').networks, params.project_id)
      return c.json(listNetworks(all, params, c.req.valid('query'), 'any'), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/v1/networks/{project_id}/{region_id}',
      operationId: 'listNetworks',
      tags: ['Cloud'],
      summary: "List networks with subnets: the project's own, or any it can attach",
      request: {
        params: Params,
        query: Query.extend({
          owned_by: z
            .enum(['project', 'any'])
            .optional()
            .openapi({ description: '`project` (default): its own; `any`: also shared ones' }),
        }),
      },
      responses: { 200: ok('Networks', ListSchema), ...CloudErrors },
    }),
    function listProjectNetworks(c) {
      const q = c.req.valid('query')
      const params = c.req.valid('param')
      const all = visibleNetworks(c.get('principal'), c.get('data').networks, params.project_id)
      return c.json(listNetworks(all, params, q, q.owned_by ?? 'project'), 200)
    },
  )
