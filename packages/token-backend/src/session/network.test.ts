import { describe, expect, it } from 'vitest'
import { sessionNetwork } from './network.ts'

describe('sessionNetwork', () => {
  it.each([
    ['203.0.113.7', 'prefix', '203.0.113.0/24'],
    ['203.0.113.250', 'prefix', '203.0.113.0/24'],
    ['::ffff:203.0.113.7', 'prefix', '203.0.113.0/24'],
    ['2001:db8:1:2:aaaa::1', 'prefix', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::99', 'prefix', '2001:db8:1:2::/64'],
    ['203.0.113.7', 'ip', '203.0.113.7'],
    ['::ffff:203.0.113.7', 'ip', '203.0.113.7'],
    ['2001:DB8:0::1', 'ip', '2001:db8::1'],
    ['203.0.113.7', 'none', undefined],
    ['not-an-ip', 'prefix', undefined],
  ] as const)('%s bound by %s → %s', (ip, binding, network) => {
    expect(sessionNetwork(ip, binding)).toBe(network)
  })

  it('tells neighbouring /24s and /64s apart', () => {
    expect(sessionNetwork('203.0.114.7', 'prefix')).not.toBe(
      sessionNetwork('203.0.113.7', 'prefix'),
    )
    expect(sessionNetwork('2001:db8:1:3::1', 'prefix')).not.toBe(
      sessionNetwork('2001:db8:1:2::1', 'prefix'),
    )
  })
})
