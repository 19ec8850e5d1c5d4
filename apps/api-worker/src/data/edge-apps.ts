import { CLIENTS, RESELLER_ID } from './accounts.ts'
import type { Rng } from './rng.ts'

/** An edge app (spec 2.6); `debug_until` in epoch ms. */
export interface EdgeApp {
  id: number
  name: string
  status: 0 | 1 | 2 | 3 | 4 | 5
  binary: number
  api_type: 'wasi-http' | 'proxy-wasm'
  plan_id: number
  plan: string
  client_id: number
  reseller_id: number
  url: string
  comment: string
  debug_until: number
  template: number
  template_name: string
  networks: string[]
  upgradeable_to: number
}

const PLANS = [
  { id: 1, name: 'Basic' },
  { id: 2, name: 'Pro' },
  { id: 3, name: 'Business' },
  { id: 4, name: 'Enterprise' },
]
const TEMPLATES = [
  { id: 1, name: 'Hello world' },
  { id: 2, name: 'Geo redirect' },
  { id: 3, name: 'Image resize' },
  { id: 4, name: 'Token auth' },
  { id: 5, name: 'A/B testing' },
  { id: 6, name: 'Header rewrite' },
]
const WORDS = [
  'edge',
  'auth',
  'geo',
  'resize',
  'router',
  'cache',
  'token',
  'ab-test',
  'headers',
  'redirect',
  'waf',
  'logger',
]
const NETWORKS = ['default', 'eu', 'us', 'asia', 'latam']

/**
 * 500 edge apps over the reseller's clients: every status (0–5), both API types, all plans and
 * templates, binaries shared by a few apps each.
 *
 * @example
 * ```ts
 * generateEdgeApps(createRng(42), Date.now()).length // 500
 * ```
 */
export function generateEdgeApps(rng: Rng, now: number): EdgeApp[] {
  return Array.from({ length: 500 }, (_, i) => {
    const plan = rng.pick(PLANS)
    const template = rng.pick(TEMPLATES)
    const name = `${rng.pick(WORDS)}-${rng.pick(WORDS)}-${i + 1}`
    return {
      id: i + 1,
      name,
      status: (i % 6) as EdgeApp['status'],
      binary: rng.int(1, 150),
      api_type: rng.chance(0.6) ? 'wasi-http' : 'proxy-wasm',
      plan_id: plan.id,
      plan: plan.name,
      client_id: rng.pick(CLIENTS).id,
      reseller_id: RESELLER_ID,
      url: `https://${name}.edgeapps.example`,
      comment: rng.chance(0.5) ? `${template.name} for ${rng.pick(NETWORKS)} traffic` : '',
      debug_until: now + rng.int(-7 * 86400, 86400) * 1000,
      template: template.id,
      template_name: template.name,
      networks: rng.sample(NETWORKS, rng.int(1, 3)),
      upgradeable_to: plan.id < 4 ? plan.id + 1 : 0,
    }
  })
}
