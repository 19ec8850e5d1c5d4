import { describe, expect, it } from 'vitest'
import { detectClientIp, InvalidClientIpError, normalizeIp } from './client-ip.ts'

describe('normalizeIp', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['0.0.0.0', '0.0.0.0'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['::1', '::1'],
    ['::ffff:1.2.3.4', '::ffff:1.2.3.4'],
    ['::FFFF:0102:0304', '::ffff:1.2.3.4'],
  ])('accepts %j as %j', (text, ip) => {
    expect(normalizeIp(text)).toBe(ip)
  })

  it.each([
    '',
    '1',
    '1.2.3',
    '01.2.3.4',
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
