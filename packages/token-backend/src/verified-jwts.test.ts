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

  it('keeps the most recently used', () => {
    const verified = new VerifiedJwts<true>(2)
    for (const n of [1, 2]) verified.keep(`Bearer h.p.${n}`, true, { sub: `v${n}` })
    verified.get('Bearer h.p.1', true, NOW)
    verified.keep('Bearer h.p.3', true, { sub: 'v3' })
    expect(verified.get('Bearer h.p.2', true, NOW)).toBeUndefined()
    expect(verified.get('Bearer h.p.1', true, NOW)).toEqual({ sub: 'v1' })
  })

  it('gives every request claims of its own: a change by one is seen by no other', () => {
    const verified = new VerifiedJwts<true>()
    const accepted = { sub: 'viewer-1', videos: ['demo'] }
    verified.keep(header, true, accepted)
    // the first request's own object, changed after the middleware
    accepted.videos.push('paid')
    const first = verified.get(header, true, NOW) as { videos: string[] }
    first.videos.push('other')
    expect(verified.get(header, true, NOW)).toEqual({ sub: 'viewer-1', videos: ['demo'] })
    expect(verified.get(header, true, NOW)).not.toBe(verified.get(header, true, NOW))
  })

  it.each([
    ['two spaces', 'Bearer  a.b.c'],
    ['another case', 'bearer a.b.c'],
    ['a tab', 'Bearer\ta.b.c'],
    ['padding', 'Bearer a.b.c='],
    ['two parts', 'Bearer a.b'],
    ['a longer header than any JWT', `Bearer a.${'b'.repeat(5000)}.c`],
  ])('remembers only the one form players send, not %s', (_, variant) => {
    const verified = new VerifiedJwts<true>()
    verified.keep(variant, true, { sub: 'v' })
    expect(verified.get(variant, true, NOW)).toBeUndefined()
  })

  it('keeps nothing without a header or claims', () => {
    const verified = new VerifiedJwts<true>()
    verified.keep(undefined, true, { sub: 'v' })
    verified.keep(header, true, undefined)
    expect(verified.get(header, true, NOW)).toBeUndefined()
  })
})
