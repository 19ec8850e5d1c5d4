import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { forwardedClientIp, unmappedIp } from './client-ip.ts'
import { type IpRanges, parseIpRanges } from './ip-range.ts'

const rangesOf = (entries: string[]): IpRanges => {
  const parsed = parseIpRanges(entries)
  if (!('ranges' in parsed)) throw new Error(`not ranges: ${parsed.invalid}`)
  return parsed.ranges
}

describe('parseIpRanges', () => {
  it.each([
    ['10.0.0.0/8', '10.255.3.4', true],
    ['10.0.0.0/8', '11.0.0.1', false],
    ['10.0.0.0/8', '::ffff:10.1.2.3', true],
    ['192.168.1.7', '192.168.1.7', true],
    ['192.168.1.7', '192.168.1.8', false],
    ['172.16.0.0/12', '172.31.255.255', true],
    ['172.16.0.0/12', '172.32.0.0', false],
    ['2001:db8::/32', '2001:DB8:ffff::1', true],
    ['2001:db8::/32', '2001:db9::1', false],
    ['::1', '::1', true],
    ['::1', '127.0.0.1', false],
    ['127.0.0.0/8', '::1', false],
    ['fd00::/7', 'fc12::3', true],
    ['0.0.0.0/0', '203.0.113.9', true],
    ['0.0.0.0/0', '2001:db8::1', false],
    ['::/0', '2001:db8::1', true],
    ['10.0.0.0/8', 'not-an-ip', false],
  ])('%s holds %s: %s', (range, ip, held) => {
    expect(rangesOf([range]).has(ip)).toBe(held)
  })

  it.each([
    '10.0.0.0/33',
    '::/129',
    '10.0.0/8',
    'example.com',
    '10.0.0.0/8/1',
    '10.0.0.0/',
    '1.2.3.4/x',
  ])('refuses %j, naming it', (entry) => {
    expect(parseIpRanges(['127.0.0.1', entry])).toEqual({ invalid: entry })
  })

  it('is open only with a whole family', () => {
    expect(rangesOf(['10.0.0.0/8', '::1']).open).toBe(false)
    expect(rangesOf(['0.0.0.0/0']).open).toBe(true)
    expect(rangesOf(['::/0']).open).toBe(true)
  })

  it('a /n range holds exactly the addresses that share its first n bits (IPv4)', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.ipV4(), fc.integer({ min: 0, max: 32 }), (base, ip, bits) => {
        const toNumber = (text: string) =>
          text.split('.').reduce((sum, part) => sum * 256 + Number(part), 0)
        const same =
          Math.floor(toNumber(base) / 2 ** (32 - bits)) ===
          Math.floor(toNumber(ip) / 2 ** (32 - bits))
        expect(rangesOf([`${base}/${bits}`]).has(ip)).toBe(same)
      }),
    )
  })
})

describe('forwardedClientIp', () => {
  const proxies = rangesOf(['10.0.0.0/8', '::1'])

  it('an untrusted peer is the viewer, whatever it wrote', () => {
    expect(forwardedClientIp('203.0.113.9', '6.6.6.6', proxies)).toBe('203.0.113.9')
    expect(forwardedClientIp('::ffff:203.0.113.9', '6.6.6.6', proxies)).toBe('::ffff:203.0.113.9')
  })

  it('behind trusted proxies: the right-most entry that is not one', () => {
    expect(forwardedClientIp('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.1', proxies)).toBe(
      '198.51.100.7',
    )
    expect(forwardedClientIp('::1', '198.51.100.7', proxies)).toBe('198.51.100.7')
  })

  it('a trusted peer without the header is the viewer itself', () => {
    expect(forwardedClientIp('10.0.0.2', undefined, proxies)).toBe('10.0.0.2')
    expect(forwardedClientIp('10.0.0.2', '', proxies)).toBe('10.0.0.2')
  })

  it('every entry trusted: the left-most', () => {
    expect(forwardedClientIp('10.0.0.2', '10.9.9.9, 10.0.0.1', proxies)).toBe('10.9.9.9')
  })

  it('a malformed entry ends the walk at the last address a proxy vouched for', () => {
    expect(forwardedClientIp('10.0.0.2', '6.6.6.6, unknown, 10.0.0.1', proxies)).toBe('10.0.0.1')
    expect(forwardedClientIp('10.0.0.2', 'garbage', proxies)).toBe('10.0.0.2')
  })

  it('a peer that is no address is undefined', () => {
    expect(forwardedClientIp('', '6.6.6.6', proxies)).toBeUndefined()
  })

  it('whatever a caller prepends, an untrusted hop decides (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.ipV4(), { maxLength: 5 }), fc.ipV4(), (forged, real) => {
        fc.pre(!proxies.has(real))
        const header = [...forged, real, '10.0.0.1'].join(', ')
        expect(forwardedClientIp('10.0.0.2', header, proxies)).toBe(real)
      }),
    )
  })
})

describe('unmappedIp', () => {
  it.each([
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['2001:DB8::1', '2001:db8::1'],
    ['127.0.0.1', '127.0.0.1'],
    ['nope', undefined],
  ])('%s → %s', (text, ip) => {
    expect(unmappedIp(text)).toBe(ip)
  })
})
