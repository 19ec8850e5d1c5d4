import type { StoredTask } from '../state/emulator-state.ts'
import { DEV_CLIENT_ID, REGIONS, SECOND_CLIENT_ID } from './accounts.ts'
import type { Rng } from './rng.ts'

/** A tag as read back (spec 2.1). */
export interface Tag {
  key: string
  value: string
  read_only: boolean
}

/** A static route (spec 2.2). */
export interface Route {
  destination: string
  nexthop: string
}

/** What networks and subnets share (spec 2.2). Times are epoch ms here; formatted per endpoint. */
export interface RegionalResource {
  project_id: number | null
  region_id: number
  region: string
  created_at: number
  updated_at: number
  creator_task_id: string | null
  task_id: string | null
  tags: Tag[]
}

/** A subnet (spec 2.2). */
export interface Subnet extends RegionalResource {
  id: string
  network_id: string
  name: string
  ip_version: 4 | 6
  cidr: string
  enable_dhcp: boolean
  gateway_ip: string | null
  dns_nameservers: string[] | null
  host_routes: Route[] | null
  available_ips: number | null
  total_ips: number | null
  has_router: false
}

/** A network with its subnets (spec 2.2). */
export interface Network extends RegionalResource {
  id: string
  name: string
  type: 'vlan' | 'vxlan'
  mtu: number
  external: boolean
  default: boolean | null
  shared: boolean
  port_security_enabled: boolean
  segmentation_id: number | null
  subnets: Subnet[]
  /** Listing priority for `order_by=priority.desc`: default first, then external, then shared. */
  priority: number
}

/** The projects the networks belong to; `null` owner = shared by an external owner. */
export const NETWORK_PROJECTS = [1, 2] as const

/**
 * The client account of each seeded project: 1 and 2 (every seeded network's) are client 1001's,
 * 3 is the second client's (no networks of its own yet). A project no one has is the caller's own,
 * empty, as it always was, and another client's project reads like one (`projectVisible`).
 */
export const PROJECT_OWNERS: ReadonlyMap<number, number> = new Map([
  [1, DEV_CLIENT_ID],
  [2, DEV_CLIENT_ID],
  [3, SECOND_CLIENT_ID],
])

const PURPOSES = ['web', 'db', 'cache', 'k8s', 'gpu', 'storage', 'mgmt', 'edge', 'batch', 'ci']
const ENVS = ['prod', 'staging', 'dev', 'qa']
const TAG_KEYS = ['env', 'team', 'cost-center', 'owner', 'tier']
const TAG_VALUES: Record<string, string[]> = {
  env: ENVS,
  team: ['video', 'platform', 'data', 'security'],
  'cost-center': ['cc-100', 'cc-200', 'cc-300'],
  owner: ['alice', 'bob', 'carol'],
  tier: ['gold', 'silver', 'bronze'],
}

const makeTags = (rng: Rng): Tag[] =>
  rng.sample(TAG_KEYS, rng.int(0, 3)).map((key) => ({
    key,
    value: rng.pick(TAG_VALUES[key] ?? ['x']),
    read_only: rng.chance(0.15),
  }))

/**
 * The `creator_task_id` of a seeded network or subnet: most of a project's resources have one
 * (served by {@link creatorTasks}); a network shared by an external owner was created by a task of
 * another account, which no caller of this one could read.
 */
const creatorTaskId = (rng: Rng, projectId: number | null) =>
  projectId !== null && rng.chance(0.7) ? rng.uuid() : null

/**
 * 50 networks: 30 in project 1 / region 1 (so one listing exercises every filter), the rest spread
 * over the other projects and regions, some shared by an external owner and some external.
 *
 * @example
 * ```ts
 * const networks = generateNetworks(createRng(42), Date.now())
 * ```
 */
export function generateNetworks(rng: Rng, now: number): Network[] {
  return Array.from({ length: 50 }, (_, i) => {
    const region = i < 30 ? (REGIONS[0] as (typeof REGIONS)[number]) : rng.pick(REGIONS)
    const shared = i % 9 === 4
    const external = i % 7 === 3
    const projectId = shared ? null : i < 30 ? 1 : rng.pick(NETWORK_PROJECTS)
    const type = external || rng.chance(0.3) ? 'vlan' : 'vxlan'
    const created = now - rng.int(1, 400) * 86_400_000 - rng.int(0, 86_399) * 1000
    const updated = Math.min(now, created + rng.int(0, 60) * 86_400_000)
    const id = rng.uuid()
    const isDefault = i === 0 ? true : external ? null : false
    // Where and when: the same for a network and its subnets.
    const placement = {
      project_id: projectId,
      region_id: region.id,
      region: region.name,
      created_at: created,
      updated_at: updated,
    }
    const subnets: Subnet[] = Array.from({ length: rng.int(1, 3) }, (__, s) => {
      const v6 = s === 2 || (s === 1 && rng.chance(0.3))
      const third = (i * 3 + s) % 256
      const cidr = v6 ? `2001:db8:${(i * 16 + s).toString(16)}::/64` : `10.${i}.${third}.0/24`
      const gateway = v6 ? `2001:db8:${(i * 16 + s).toString(16)}::1` : `10.${i}.${third}.1`
      const total = v6 ? null : 253
      return {
        id: rng.uuid(),
        network_id: id,
        name: `${v6 ? 'v6' : 'v4'}-subnet-${s + 1}`,
        ip_version: v6 ? 6 : 4,
        cidr,
        enable_dhcp: rng.chance(0.8),
        gateway_ip: rng.chance(0.85) ? gateway : null,
        dns_nameservers: v6 ? null : rng.chance(0.6) ? ['1.1.1.1', '8.8.8.8'] : null,
        host_routes: rng.chance(0.2)
          ? [{ destination: v6 ? '2001:db8:ffff::/48' : '192.168.0.0/16', nexthop: gateway }]
          : null,
        available_ips: total === null ? null : rng.int(10, total),
        total_ips: total,
        has_router: false,
        ...placement,
        creator_task_id: creatorTaskId(rng, projectId),
        task_id: null,
        tags: makeTags(rng),
      }
    })
    return {
      id,
      name: external
        ? `public-${region.name.toLowerCase()}-${i}`
        : `${rng.pick(ENVS)}-${rng.pick(PURPOSES)}-net-${i}`,
      type,
      mtu: type === 'vxlan' ? 1450 : 1500,
      external,
      default: isDefault,
      shared,
      port_security_enabled: !external,
      segmentation_id: type === 'vlan' ? rng.int(100, 4000) : null,
      ...placement,
      creator_task_id: creatorTaskId(rng, projectId),
      // Never locked (spec 3 rule 1: a non-null task_id is an active task holding a lock until it
      // finishes): seeded data cannot hold a lock that ever ends, and a finished task holds none.
      task_id: null,
      subnets,
      tags: makeTags(rng),
      priority: (isDefault ? 4 : 0) + (external ? 2 : 0) + (shared ? 1 : 0),
    }
  })
}

/**
 * The tasks that created the seeded networks and subnets, so every `creator_task_id` can be polled
 * (`GET /cloud/v1/tasks/{task_id}`): each FINISHED, created when its resource was, by the dev
 * client (1001, the owner of the seeded projects), with the resource in `created_resources`.
 *
 * @example
 * ```ts
 * const tasks = creatorTasks(generateNetworks(createRng(42), Date.now()))
 * tasks[0]?.task_type // 'create_network'
 * ```
 */
export function creatorTasks(networks: readonly Network[]): StoredTask[] {
  const task = (
    resource: RegionalResource & { id: string; name: string },
    kind: 'network' | 'subnet',
    request: Record<string, string | number>,
  ): StoredTask[] =>
    resource.creator_task_id === null || resource.project_id === null
      ? []
      : [
          {
            id: resource.creator_task_id,
            task_type: `create_${kind}`,
            project_id: resource.project_id,
            region_id: resource.region_id,
            user_id: DEV_CLIENT_ID * 10 + 1,
            client_id: DEV_CLIENT_ID,
            created_on: resource.created_at,
            outcome: 'finished',
            request: JSON.stringify({ name: resource.name, ...request }),
            created_resources: { [`${kind}s`]: [resource.id] },
          },
        ]
  return networks.flatMap((network) => [
    ...task(network, 'network', { type: network.type }),
    ...network.subnets.flatMap((subnet) =>
      task(subnet, 'subnet', {
        network_id: subnet.network_id,
        cidr: subnet.cidr,
        ip_version: subnet.ip_version,
      }),
    ),
  ])
}
