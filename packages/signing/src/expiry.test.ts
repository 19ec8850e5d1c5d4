import { describe, expect, it } from 'vitest'
import {
  ABSOLUTE_EXPIRY_THRESHOLD,
  DEFAULT_LIFETIME_SECONDS,
  MAX_NOW_SECONDS,
  parseExpire,
  resolveExpiry,
} from './expiry.ts'

const nowSeconds = 1_800_000_000

describe('parseExpire', () => {
  it.each([
    ['60', 60],
    ['+60', 60],
    ['-5', -5],
    ['0', 0],
    ['007', 7],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('parses %j as %d', (text, value) => {
    expect(parseExpire(text)).toBe(value)
  })

  it.each([
    '60s',
    '1.5',
    '1e3',
    '0x10',
    ' 60',
    '60 ',
    '',
    '+',
    '-',
    '--5',
    '9007199254740992',
    '99999999999999999999',
    '٣',
  ])('treats %j as unparsable', (text) => {
    expect(parseExpire(text)).toBeUndefined()
  })

  it('treats a missing value as unparsable', () => {
    expect(parseExpire(undefined)).toBeUndefined()
    expect(parseExpire(null)).toBeUndefined()
  })
})

describe('resolveExpiry', () => {
  it.each([undefined, '', 'abc', '60s', '1e3', '0', '-5', '-0'])(
    'defaults %j to now + 3600',
    (expire) => {
      expect(resolveExpiry(expire, { nowSeconds })).toBe(nowSeconds + DEFAULT_LIFETIME_SECONDS)
    },
  )

  it('adds a relative lifetime to now', () => {
    expect(resolveExpiry('600', { nowSeconds })).toBe(nowSeconds + 600)
    expect(resolveExpiry('+20', { nowSeconds })).toBe(nowSeconds + 20)
    expect(resolveExpiry(20, { nowSeconds })).toBe(nowSeconds + 20)
  })

  it('treats exactly the threshold as relative and anything above as absolute', () => {
    expect(resolveExpiry(String(ABSOLUTE_EXPIRY_THRESHOLD), { nowSeconds })).toBe(
      nowSeconds + ABSOLUTE_EXPIRY_THRESHOLD,
    )
    expect(resolveExpiry(String(ABSOLUTE_EXPIRY_THRESHOLD + 1), { nowSeconds })).toBe(
      ABSOLUTE_EXPIRY_THRESHOLD + 1,
    )
    expect(resolveExpiry('1900000000', { nowSeconds })).toBe(1_900_000_000)
  })

  it('accepts an absolute timestamp in the past (an already-expired token)', () => {
    expect(resolveExpiry('1750000000', { nowSeconds })).toBe(1_750_000_000)
  })

  it('always yields integer seconds, even from a fractional clock', () => {
    expect(resolveExpiry('60', { nowSeconds: nowSeconds + 0.9 })).toBe(nowSeconds + 60)
    expect(resolveExpiry(1.5, { nowSeconds })).toBe(nowSeconds + DEFAULT_LIFETIME_SECONDS)
  })

  it('applies an optional lifetime cap to every rule', () => {
    const capped = { nowSeconds, maxLifetimeSeconds: 300 }
    expect(resolveExpiry('600', capped)).toBe(nowSeconds + 300)
    expect(resolveExpiry('60', capped)).toBe(nowSeconds + 60)
    expect(resolveExpiry(undefined, capped)).toBe(nowSeconds + 300)
    expect(resolveExpiry('1900000000', capped)).toBe(nowSeconds + 300)
  })

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['1e21', 1e21],
    ['negative', -1],
    ['one past MAX_NOW_SECONDS', MAX_NOW_SECONDS + 1],
    ['undefined', undefined],
    ['null', null],
    ['a string', '1800000000'],
  ])('refuses a clock that is not Unix seconds: nowSeconds %s', (_, now) => {
    const options = { nowSeconds: now as number }
    expect(() => resolveExpiry('600', options)).toThrow(RangeError)
    expect(() => resolveExpiry('600', options)).toThrow(/^nowSeconds must be/)
  })

  it('signs exact expiries up to MAX_NOW_SECONDS, the longest relative lifetime included', () => {
    const expires = resolveExpiry(String(ABSOLUTE_EXPIRY_THRESHOLD), {
      nowSeconds: MAX_NOW_SECONDS,
    })
    expect(expires).toBe(Number.MAX_SAFE_INTEGER)
    expect(resolveExpiry(undefined, { nowSeconds: 0 })).toBe(DEFAULT_LIFETIME_SECONDS)
  })

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a fraction', 1.5],
    ['negative', -300],
    ['beyond the safe integers', 2 ** 53],
  ])('refuses a cap that is not whole seconds: maxLifetimeSeconds %s', (_, cap) => {
    const options = { nowSeconds, maxLifetimeSeconds: cap }
    expect(() => resolveExpiry('600', options)).toThrow(RangeError)
    expect(() => resolveExpiry('600', options)).toThrow(/^maxLifetimeSeconds must be/)
  })

  it('accepts a cap of 0: the token lives for the current second', () => {
    expect(resolveExpiry('600', { nowSeconds, maxLifetimeSeconds: 0 })).toBe(nowSeconds)
  })
})
