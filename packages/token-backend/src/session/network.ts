import { normalizeIp, viewerNetwork } from '@proj/signing'
import type { SessionBinding } from '../config.ts'

/**
 * The network a session is tied to from `ip`: an IPv4 address's /24 or an IPv6 address's /64
 * (`prefix`: one household, phone or office keeps it while its address changes inside it), the
 * address itself (`ip`), or nothing (`none`). An IPv4-mapped IPv6 address counts as its IPv4.
 *
 * @returns `undefined` for binding `none` or when `ip` is not an address.
 * @example
 * ```ts
 * sessionNetwork('203.0.113.7', 'prefix')          // '203.0.113.0/24'
 * sessionNetwork('2001:db8:1:2:aaaa::1', 'prefix') // '2001:db8:1:2::/64'
 * sessionNetwork('::ffff:203.0.113.7', 'ip')       // '203.0.113.7'
 * sessionNetwork('203.0.113.7', 'none')            // undefined
 * ```
 */
export function sessionNetwork(ip: string, binding: SessionBinding): string | undefined {
  if (binding === 'none') return undefined
  // viewerNetwork: IPv4 as is (mapped ones unwrapped), IPv6 as its /64
  const network = viewerNetwork(ip)
  if (network === undefined) return undefined
  if (network.endsWith('/64')) return binding === 'prefix' ? network : normalizeIp(ip)
  return binding === 'prefix' ? `${network.slice(0, network.lastIndexOf('.'))}.0/24` : network
}
