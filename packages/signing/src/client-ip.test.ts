import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { detectClientIp, InvalidClientIpError, normalizeIp, viewerNetwork } from './client-ip.ts'

describe('normalizeIp', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['0.0.0.0', '0.0.0.0'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['::1', '::1'],
    ['::ffff:1.2.3.4', '::ffff:1.2.3.4'],
    ['::FFFF:0102:0304', '::ffff:1.2.3.4'],
    // what nginx's $remote_addr prints (ngx_inet6_ntop): a dotted tail when the zero run that
    // starts the address is 5 words then ffff (mapped), 6 words, or 7 words whose last word's
    // high byte is not 0 and low byte not 1 (IPv4-compatible)
    ['::1.2.3.4', '::1.2.3.4'],
    ['::102:304', '::1.2.3.4'],
    ['::102', '::0.0.1.2'],
    ['::100', '::0.0.1.0'],
    ['::1:2', '::0.1.0.2'],
    ['::ffff:0:0', '::ffff:0.0.0.0'],
    ['::0.0.0.1', '::1'],
    ['::2', '::2'],
    ['::ff', '::ff'],
    ['::101', '::101'],
    ['::201', '::201'],
    ['::ffff:0:1.2.3.4', '::ffff:0:102:304'],
    ['0:0:0:0:1:0:0:0', '::1:0:0:0'],
    ['0:0:0:1:0:0:0:0', '0:0:0:1::'],
    ['0:0:0:0:0:1:0:0', '::1:0:0'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:0:0:2:0:0:3:4', '1::2:0:0:3:4'],
    ['0:0:0:0:0:0:0:0', '::'],
  ])('accepts %j as %j', (text, ip) => {
    expect(normalizeIp(text)).toBe(ip)
  })

  it.each([
    '',
    '1',
    '1.2.3',
    '01.2.3.4',
    '::ffff:01.2.3.4',
    '::ffff:1.2.3',
    '1:2:3:4:5:6:7::8',
    ':::1',
    '1::2::3',
    '0x7f.0.0.1',
    '256.1.1.1',
    ' 1.2.3.4',
    '[::1]',
    'fe80::1%eth0',
    '1:2:3:4:5:6:7:8:9',
    'unknown',
    '1.2.3.4/24',
  ])('rejects %j', (text) => {
    expect(normalizeIp(text)).toBeUndefined()
  })

  it.each([123, null, undefined, {}, ['1.2.3.4']])(
    "answers undefined for a JavaScript caller's %j, not a TypeError",
    (value) => {
      expect(normalizeIp(value as unknown as string)).toBeUndefined()
      expect(viewerNetwork(value as unknown as string)).toBeUndefined()
    },
  )
})

describe('normalizeIp against an independent IPv6 printer (WHATWG URL)', () => {
  // URL prints every address in hex (no dotted tail), otherwise with the same RFC 5952 rules
  const viaUrl = (text: string) => new URL(`http://[${text}]/`).hostname.slice(1, -1)
  const word = fc.oneof(
    fc.constant(0),
    fc.constant(0),
    fc.constant(0xffff),
    fc.integer({ min: 0, max: 0xffff }),
  )
  // nginx's dotted cases, told by the leading zero words alone: a run of 5 or more that starts
  // the address is always the longest one
  const nginxDots = (words: number[]) => {
    const leading = words.findIndex((w) => w !== 0)
    const last = words[7] ?? 0
    return (
      (leading === 5 && words[5] === 0xffff) ||
      leading === 6 ||
      (leading === 7 && last >> 8 !== 0 && (last & 255) !== 1)
    )
  }

  it('prints the same address, in hex as URL does unless nginx dots its last 32 bits', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 8, maxLength: 8 }), (words) => {
        const full = words.map((w) => w.toString(16).toUpperCase().padStart(4, '0')).join(':')
        const printed = normalizeIp(full) ?? ''
        expect(viaUrl(printed)).toBe(viaUrl(full))
        expect(normalizeIp(printed)).toBe(printed)
        expect(printed.includes('.')).toBe(nginxDots(words))
        if (!nginxDots(words)) expect(printed).toBe(viaUrl(full))
      }),
      { numRuns: 3000 },
    )
  })
})

describe('detectClientIp', () => {
  it('lets an explicit IP win over headers', () => {
    const headers = new Headers({ 'x-real-ip': '198.51.100.1' })
    expect(detectClientIp(headers, { explicit: '203.0.113.9' })).toBe('203.0.113.9')
  })

  it('throws on an invalid explicit IP instead of signing it', () => {
    expect(() => detectClientIp(new Headers(), { explicit: 'evil' })).toThrow(InvalidClientIpError)
  })

  it('prefers x-real-ip, then x-forwarded-for, and takes the first trimmed entry', () => {
    expect(
      detectClientIp(
        new Headers({ 'x-real-ip': ' 198.51.100.1 , 10.0.0.1', 'x-forwarded-for': '192.0.2.1' }),
      ),
    ).toBe('198.51.100.1')
    expect(detectClientIp(new Headers({ 'x-forwarded-for': '192.0.2.1, 10.0.0.1' }))).toBe(
      '192.0.2.1',
    )
  })

  it('skips a header whose first entry is not an IP', () => {
    expect(
      detectClientIp(new Headers({ 'x-real-ip': 'unknown', 'x-forwarded-for': '192.0.2.1' })),
    ).toBe('192.0.2.1')
    expect(detectClientIp(new Headers({ 'x-forwarded-for': ', 192.0.2.1' }))).toBe('0.0.0.0')
  })

  it('falls back to 0.0.0.0', () => {
    expect(detectClientIp(new Headers())).toBe('0.0.0.0')
  })

  it('follows a configured header order', () => {
    const headers = new Headers({ 'cf-connecting-ip': '2001:DB8::7', 'x-real-ip': '198.51.100.1' })
    expect(detectClientIp(headers, { headerNames: ['cf-connecting-ip', 'x-real-ip'] })).toBe(
      '2001:db8::7',
    )
    expect(detectClientIp(headers, { headerNames: [] })).toBe('0.0.0.0')
  })
})

describe('viewerNetwork', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8::/64'],
    ['::1', '::/64'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
  ])('%s counts as %s', (ip, network) => {
    expect(viewerNetwork(ip)).toBe(network)
  })

  it('two addresses of one /64 are one viewer, of neighbouring /64s two', () => {
    expect(viewerNetwork('2001:db8:0:1::a')).toBe(viewerNetwork('2001:db8:0:1:ffff::b'))
    expect(viewerNetwork('2001:db8:0:1::a')).not.toBe(viewerNetwork('2001:db8:0:2::a'))
  })

  it.each(['', 'example.com', '1.2.3', 'fe80::1%eth0'])('%j is not an address', (text) => {
    expect(viewerNetwork(text)).toBeUndefined()
  })
})
