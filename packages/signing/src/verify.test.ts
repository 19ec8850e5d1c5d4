import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { verifyToken } from './verify.ts'

const secret = 'test-secret'
const expires = 1_800_000_000
// the independent oracle: node:crypto, not this package's signer
const token = createHash('md5').update(`12345_demo_${secret}_${expires}_`).digest('base64url')
const check = (overrides: Partial<Parameters<typeof verifyToken>[0]> = {}) =>
  verifyToken({
    clientVideo: '12345_demo',
    token,
    expires: String(expires),
    secret,
    ip: '',
    nowSeconds: expires - 10,
    ...overrides,
  })

describe('verifyToken (nginx secure_link semantics)', () => {
  it('accepts the token until and including its expiry second, then answers 410', () => {
    expect(check()).toBe(200)
    expect(check({ nowSeconds: expires })).toBe(200)
    expect(check({ nowSeconds: expires + 1 })).toBe(410)
  })

  it('answers 403 for a wrong secret, video, expiry or IP, even when expired', () => {
    expect(check({ secret: 'other' })).toBe(403)
    expect(check({ clientVideo: '12345_other' })).toBe(403)
    expect(check({ expires: String(expires + 1) })).toBe(403)
    expect(check({ ip: '127.0.0.1' })).toBe(403)
    expect(check({ secret: 'other', nowSeconds: expires + 100 })).toBe(403)
  })

  it('checks IP-bound tokens against the address', () => {
    const bound = createHash('md5')
      .update(`12345_demo_${secret}_${expires}_127.0.0.1`)
      .digest('base64url')
    expect(check({ token: bound, ip: '127.0.0.1' })).toBe(200)
    expect(check({ token: bound, ip: '127.0.0.2' })).toBe(403)
  })

  it.each([
    ['empty', ''],
    ['too long', `${token}AAAA`],
    ['not base64url', `${token.slice(0, -1)}+`],
    ['padded', `${token}==`],
    ['wrong length', token.slice(0, 20)],
  ])('answers 403 for a malformed token (%s)', (_, bad) => {
    expect(check({ token: bad })).toBe(403)
  })

  it('ignores the unused low bits of the last character, as nginx decodes', () => {
    const last = token.at(-1) ?? 'A'
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const sibling = alphabet[alphabet.indexOf(last) ^ 1] ?? last
    expect(check({ token: token.slice(0, -1) + sibling })).toBe(200)
  })

  it('reads the clock in whole seconds, as nginx: an expiry second is valid to its end', () => {
    expect(check({ nowSeconds: expires + 0.999 })).toBe(200)
    expect(check({ nowSeconds: expires + 1.2 })).toBe(410)
  })

  it.each([
    ['NaN', Number.NaN],
    ['undefined', undefined],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
  ])('never admits on a broken clock: nowSeconds %s throws a RangeError', (_, nowSeconds) => {
    const broken = { nowSeconds: nowSeconds as number }
    expect(() => check(broken)).toThrow(RangeError)
    expect(() => check(broken)).toThrow(/nowSeconds/)
    // an expired token above all
    expect(() => check({ ...broken, expires: '1700000000' })).toThrow(/nowSeconds/)
  })
})

describe('verifyToken on the expiry nginx reads (ngx_atotm)', () => {
  // a token that is the right MD5 for the text of `expires`, whatever it is
  const signedFor = (text: string) => ({
    token: createHash('md5').update(`12345_demo_${secret}_${text}_`).digest('base64url'),
    expires: text,
  })

  it.each([
    ['0', '0'],
    ['zeros', '0000'],
    ['one past the largest time_t', '9223372036854775808'],
    ['twenty digits', '99999999999999999999'],
    ['not digits', 'abc'],
    ['empty', ''],
    ['negative', '-5'],
    ['an exponent', '1e10'],
    ['a sign', '+1800000000'],
  ])('answers 403 for a correctly signed expiry nginx refuses: %s', (_, text) => {
    expect(check(signedFor(text))).toBe(403)
  })

  it('accepts the largest time_t and leading zeros, as nginx does', () => {
    expect(check(signedFor('9223372036854775807'))).toBe(200)
    expect(check(signedFor('09223372036854775807'))).toBe(200)
    expect(check(signedFor(`000${expires}`))).toBe(200)
    expect(check({ ...signedFor('0001'), nowSeconds: 2 })).toBe(410)
  })
})
