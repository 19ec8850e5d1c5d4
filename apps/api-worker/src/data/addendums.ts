import { CLIENTS, DEV_CLIENT_ID, RESELLER_ID } from './accounts.ts'
import type { Rng } from './rng.ts'

/** Products (spec 2.7). */
export const PRODUCTS: readonly { id: number; name: string; internal_name: string }[] = [
  { id: 1, name: 'CDN', internal_name: 'CDN' },
  { id: 2, name: 'Object Storage', internal_name: 'STORAGE' },
  { id: 3, name: 'Web Security', internal_name: 'DDOS' },
  { id: 4, name: 'Streaming', internal_name: 'STREAMING' },
  { id: 5, name: 'Cloud', internal_name: 'CLOUD' },
  { id: 6, name: 'Colocation Services', internal_name: 'CONNECT' },
  { id: 7, name: 'Private Cloud', internal_name: 'WG_PRIVATE_CLOUD' },
  { id: 8, name: 'p2p', internal_name: 'P2P' },
  { id: 9, name: 'DDoS Protection', internal_name: 'INFRASTRUCTURE_PROTECTION' },
  { id: 10, name: 'Managed DNS', internal_name: 'DNS' },
  { id: 11, name: 'Other Services', internal_name: 'OTHER_SERVICES' },
  { id: 12, name: 'Premium Support', internal_name: 'PREMIUM_SUPPORT' },
  { id: 13, name: 'Connectivity', internal_name: 'CONNECTIVITY' },
  { id: 14, name: 'Hosting', internal_name: 'GHOST' },
  { id: 15, name: 'Managed Services', internal_name: 'MANAGED_SERVICES' },
  { id: 16, name: 'Rent', internal_name: 'RENT' },
  { id: 17, name: 'Software development', internal_name: 'SOFTWARE_DEVELOPMENT' },
  { id: 18, name: 'VM Ware', internal_name: 'VMWARE' },
  { id: 19, name: 'LaaS', internal_name: 'LAAS' },
  { id: 20, name: 'AWS Cloud', internal_name: 'AWS_CLOUD' },
  { id: 21, name: 'Edge functions', internal_name: 'FAST_EDGE' },
  { id: 22, name: 'Technical Support', internal_name: 'TECHNICAL_SUPPORT' },
  { id: 23, name: 'WAAP', internal_name: 'WAAP' },
  { id: 25, name: 'Edge Proxy', internal_name: 'SHIELD_PROXY' },
  { id: 32, name: 'AI Managed Dedicated Compute', internal_name: 'AI_DEDCOMP' },
  { id: 65, name: 'Gclaw', internal_name: 'GCLAW' },
]

/** Currencies (spec 2.7). */
export const CURRENCIES = [
  { id: 1, char_code: 'USD', symbol: '$' },
  { id: 2, char_code: 'EUR', symbol: '€' },
] as const

const PLANS = ['Start', 'Pro', 'Business', 'Enterprise', 'Pay as you go', 'Committed use']

/** A billing addendum; times in epoch ms (spec 2.7: `start` and `end` both date-times). */
export interface Addendum {
  id: number
  addendum_id: string
  client_id: number
  client: { id: number; company_name: string }
  active_range: { start: number; end: number }
  created_at: number
  currency: (typeof CURRENCIES)[number]
  plan: { id: number; name: string }
  product: { id: number; name: string; internal_name: string }
  payer_id: number | null
  provider_id: number
  reseller_id: number
  /** Billing is paused while the range is current. */
  paused: boolean
}

/** The status of an addendum at an instant (spec 3: upcoming, active, paused, stopped). */
export function addendumStatus(
  a: Addendum,
  at: number,
): 'upcoming' | 'active' | 'paused' | 'stopped' {
  if (a.active_range.start > at) return 'upcoming'
  if (a.active_range.end <= at) return 'stopped'
  return a.paused ? 'paused' : 'active'
}

/**
 * 400 addendums over two years around now (a quarter for the dev client 1001), every product,
 * both currencies and every status represented.
 *
 * @example
 * ```ts
 * generateAddendums(createRng(42), Date.now()).length // 400
 * ```
 */
export function generateAddendums(rng: Rng, now: number): Addendum[] {
  return Array.from({ length: 400 }, (_, i) => {
    const client =
      i % 4 === 0 ? (CLIENTS.find((c) => c.id === DEV_CLIENT_ID) ?? CLIENTS[0]) : rng.pick(CLIENTS)
    const product = PRODUCTS[i % PRODUCTS.length] as (typeof PRODUCTS)[number]
    const planIndex = rng.int(0, PLANS.length - 1)
    // Start from 18 months ago to 3 months ahead; a third on long (5-year) terms. Every range
    // has an end: spec 2.7 types both as date-times, so none is open-ended.
    const start = now + rng.int(-540, 90) * 86_400_000
    const end = start + (rng.chance(0.33) ? 5 * 365 : rng.int(30, 720)) * 86_400_000
    return {
      id: i + 1,
      addendum_id: `ADD-${String(2024 + (i % 3))}-${String(i + 1).padStart(4, '0')}`,
      client_id: client?.id ?? DEV_CLIENT_ID,
      client: { id: client?.id ?? DEV_CLIENT_ID, company_name: client?.company_name ?? '' },
      active_range: { start, end },
      created_at: start - rng.int(1, 60) * 86_400_000,
      currency: CURRENCIES[rng.chance(0.6) ? 0 : 1],
      plan: { id: 100 + planIndex, name: PLANS[planIndex] ?? 'Start' },
      product,
      payer_id: rng.chance(0.2) ? null : (client?.id ?? DEV_CLIENT_ID),
      provider_id: rng.pick([1, 2, 3]),
      reseller_id: RESELLER_ID,
      paused: rng.chance(0.12),
    }
  })
}
