import { CLIENTS, DEV_CLIENT_ID, REGIONS } from './accounts.ts'
import type { Rng } from './rng.ts'

/** Quota limit request statuses (spec 3). */
export const LIMIT_REQUEST_STATUSES = ['done', 'in progress', 'rejected'] as const

const GLOBAL_LIMITS = [
  'inference_cpu_millicore_count_limit',
  'inference_gpu_a100_count_limit',
  'inference_gpu_h100_count_limit',
  'inference_gpu_l40s_count_limit',
  'inference_instance_count_limit',
  'inference_public_model_api_key_count_limit',
  'keypair_count_limit',
  'project_count_limit',
]

const REGIONAL_LIMITS = [
  'baremetal_basic_count_limit',
  'baremetal_gpu_a100_count_limit',
  'baremetal_gpu_count_limit',
  'baremetal_gpu_h100_count_limit',
  'baremetal_gpu_h200_count_limit',
  'baremetal_gpu_l40s_count_limit',
  'baremetal_hf_count_limit',
  'baremetal_infrastructure_count_limit',
  'baremetal_network_count_limit',
  'baremetal_storage_count_limit',
  'caas_container_count_limit',
  'caas_cpu_count_limit',
  'caas_gpu_count_limit',
  'caas_ram_size_limit',
  'cluster_count_limit',
  'cpu_count_limit',
  'dbaas_postgres_cluster_count_limit',
  'external_ip_count_limit',
  'faas_cpu_count_limit',
  'faas_function_count_limit',
  'faas_namespace_count_limit',
  'faas_ram_size_limit',
  'firewall_count_limit',
  'floating_count_limit',
  'gpu_count_limit',
  'gpu_virtual_a100_count_limit',
  'gpu_virtual_h100_count_limit',
  'gpu_virtual_h200_count_limit',
  'gpu_virtual_l40s_count_limit',
  'image_count_limit',
  'image_size_limit',
  'ipu_count_limit',
  'laas_topic_count_limit',
  'loadbalancer_count_limit',
  'network_count_limit',
  'ram_limit',
  'registry_count_limit',
  'registry_storage_limit',
  'router_count_limit',
  'secret_count_limit',
  'servergroup_count_limit',
  'sfs_count_limit',
  'sfs_size_limit',
  'shared_vm_count_limit',
  'snapshot_schedule_count_limit',
  'subnet_count_limit',
  'vm_count_limit',
  'volume_count_limit',
  'volume_size_limit',
  'volume_snapshots_count_limit',
  'volume_snapshots_size_limit',
]

/** A quota limit request (spec 2.4); times in epoch ms. */
export interface LimitRequest {
  id: number
  client_id: number
  status: (typeof LIMIT_REQUEST_STATUSES)[number]
  description: string
  created_at: number
  updated_at: number
  requested_limits: {
    global_limits: Record<string, number>
    regional_limits: ({ region_id: number } & Record<string, number>)[]
  }
}

const REASONS = [
  'Launching a new product line',
  'Black Friday traffic',
  'Migrating workloads from another provider',
  'Training a new model',
  'Seasonal scaling for live events',
  'Disaster recovery environment',
  'Load testing before release',
]

const amount = (rng: Rng, name: string) =>
  name.endsWith('_size_limit') || name === 'ram_limit' || name.endsWith('_storage_limit')
    ? rng.int(1, 64) * 1024
    : rng.int(1, 200)

/**
 * 300 quota limit requests over the last year, a quarter of them by the dev client (1001), every
 * status represented; each asks for a few global and regional limits.
 *
 * @example
 * ```ts
 * generateLimitRequests(createRng(42), Date.now()).length // 300
 * ```
 */
export function generateLimitRequests(rng: Rng, now: number): LimitRequest[] {
  return Array.from({ length: 300 }, (_, i) => {
    const created = now - rng.int(0, 365 * 24 * 3600) * 1000
    const status = LIMIT_REQUEST_STATUSES[i % 3] as LimitRequest['status']
    return {
      id: i + 1,
      client_id: i % 4 === 0 ? DEV_CLIENT_ID : rng.pick(CLIENTS).id,
      status,
      description: `${rng.pick(REASONS)} (request ${i + 1})`,
      created_at: created,
      updated_at:
        status === 'in progress' ? created : Math.min(now, created + rng.int(1, 72) * 3600_000),
      requested_limits: {
        global_limits: Object.fromEntries(
          rng.sample(GLOBAL_LIMITS, rng.int(0, 3)).map((name) => [name, amount(rng, name)]),
        ),
        regional_limits: rng.sample(REGIONS, rng.int(1, 2)).map((region) => ({
          region_id: region.id,
          ...Object.fromEntries(
            rng.sample(REGIONAL_LIMITS, rng.int(1, 5)).map((name) => [name, amount(rng, name)]),
          ),
        })),
      },
    }
  })
}
