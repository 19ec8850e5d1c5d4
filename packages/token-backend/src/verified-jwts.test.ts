import { decode, sign, verify } from 'hono/jwt'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { stillValid, VerifiedJwts } from './verified-jwts.ts'

const SECRET = 'verified-jwts-test-secret-0123456789'
const NOW = 1_767_225_600

afterEach(() => vi.useRealTimers())

describe('stillValid', () => {
  // hono's own verification is the reference: every clock claim one second either side of now
  const cases = [
    ...[-1, 0, 1].map((d) => ({ exp: NOW + d })),
    ...[-1, 0, 1].map((d) => ({ nbf: NOW + d })),
    ...[-1, 0, 1].map((d) => ({ iat: NOW + d })),
    { exp: NOW + 60, nbf: NOW - 60, iat: NOW - 60 },
    { exp: '9999999999' },
    { nbf: null },
    { iat: 'now' },
    {},
  ]
  it.each(cases)('decides %j as hono does', async (claims) => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW * 1000 + 500 })
    const jwt = await sign(claims as Record<string, unknown>, SECRET, 'HS256')
    const hono = await verify(jwt, SECRET, 'HS256').then(
      () => true,
      () => false,
    )
    expect(stillValid(decode(jwt).payload, NOW)).toBe(hono)
  })
})

describe('VerifiedJwts', () => {
  const header = 'Bearer a.b.c'

  it('answers the claims kept for the exact header and key set', () => {
    const verified = new VerifiedJwts<object>()
    const keys = {}
    verified.keep(header, keys, { sub: 'viewer-1', exp: NOW + 60 })
    expect(verified.get(header, keys, NOW)).toEqual({ sub: 'viewer-1', exp: NOW + 60 })
    expect(verified.get('Bearer a.b.d', keys, NOW)).toBeUndefined()
    expect(verified.get(`${header} `, keys, NOW)).toBeUndefined()
    // another key set (a JWKS rotated): verified again
    expect(verified.get(header, {}, NOW)).toBeUndefined()
    expect(verified.get(undefined, keys, NOW)).toBeUndefined()
  })

  it('forgets a JWT once hono would refuse it, for good', () => {
    const verified = new VerifiedJwts<true>()
    verified.keep(header, true, { exp: NOW + 60 })
    expect(verified.get(header, true, NOW + 59)).toBeDefined()
    expect(verified.get(header, true, NOW + 60)).toBeUndefined()
    // a clock stepped back does not revive it
    expect(verified.get(header, true, NOW)).toBeUndefined()
  })

  it('keeps the most recently used, and claims nobody can change for later requests', () => {
    const verified = new VerifiedJwts<true>(2)
    for (const n of [1, 2]) verified.keep(`Bearer ${n}`, true, { sub: `v${n}` })
    verified.get('Bearer 1', true, NOW)
    verified.keep('Bearer 3', true, { sub: 'v3' })
    expect(verified.get('Bearer 2', true, NOW)).toBeUndefined()
    const claims = verified.get('Bearer 1', true, NOW)
    expect(claims).toEqual({ sub: 'v1' })
    expect(Object.isFrozen(claims)).toBe(true)
  })

  it('keeps nothing without a header or claims', () => {
    const verified = new VerifiedJwts<true>()
    verified.keep(undefined, true, { sub: 'v' })
    verified.keep(header, true, undefined)
    expect(verified.get(header, true, NOW)).toBeUndefined()
  })
})
