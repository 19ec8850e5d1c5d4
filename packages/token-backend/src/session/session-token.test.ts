import { sign } from 'hono/jwt'
import * as v from 'valibot'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  issuedAt,
  type SessionClaims,
  signSession,
  verifiedSessions,
  verifySession,
} from './session-token.ts'

const SECRET = 'session-secret-of-enough-length-01'
const NOW = 1_795_000_000
const claims: SessionClaims = {
  cid: '12345',
  video: 'demo',
  type: 'vod',
  sid: 'sid-0123456789',
  iat: NOW,
  exp: NOW + 600,
  bind: 'prefix',
  net: '203.0.113.0/24',
  sub: 'user-1',
}

afterEach(() => vi.restoreAllMocks())

describe('session credentials', () => {
  it('carry the issue time to the millisecond in a claim of its own, iat a whole second as before', async () => {
    const fresh = { ...claims, iatms: NOW * 1000 + 344 }
    const credential = await signSession(fresh, SECRET)
    expect(await verifySession(credential, SECRET, NOW + 1)).toEqual({ claims: fresh })
    expect(issuedAt(fresh)).toBe(NOW + 0.344)
    // a credential of an earlier release (no iatms): its whole second
    expect(issuedAt(claims)).toBe(NOW)
    // the release before read claims with this schema (iat an integer, unknown claims ignored):
    // its instances accept what this one issues, during a rolling upgrade and after a rollback
    const previous = v.object({
      sid: v.string(),
      iat: v.pipe(v.number(), v.integer()),
      exp: v.pipe(v.number(), v.integer()),
    })
    const payload = JSON.parse(
      atob((credential.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/')),
    )
    expect(v.safeParse(previous, payload).success).toBe(true)
    // a fraction in iat would not pass it
    expect(v.safeParse(previous, { ...payload, iat: NOW + 0.344 }).success).toBe(false)
  })

  it('verify what they sign, and refuse another secret, a changed claim or an expired one', async () => {
    const credential = await signSession(claims, SECRET)
    expect(await verifySession(credential, SECRET, NOW + 1)).toEqual({ claims })
    expect(await verifySession(credential, `${SECRET}-rotated`, NOW + 1)).toEqual({
      problem: 'invalid',
    })
    const [header, , signature] = credential.split('.')
    const widened = btoa(JSON.stringify({ ...claims, video: 'paid' }))
      .replace(/=+$/, '')
      .replaceAll('+', '-')
      .replaceAll('/', '_')
    expect(await verifySession(`${header}.${widened}.${signature}`, SECRET, NOW)).toEqual({
      problem: 'invalid',
    })
    expect(await verifySession(credential, SECRET, NOW + 600)).toEqual({ problem: 'expired' })
  })

  it('refuse a signed token whose claims are not a session (another JWT of the same secret)', async () => {
    const viewerJwt = await sign({ sub: 'user-1', exp: NOW + 600 }, SECRET, 'HS256')
    expect(await verifySession(viewerJwt, SECRET, NOW)).toEqual({ problem: 'invalid' })
  })

  it('import a secret once, not once per credential signed or verified', async () => {
    const importKey = vi.spyOn(crypto.subtle, 'importKey')
    const secret = `${SECRET}-import-count`
    const credentials = await Promise.all(
      ['a', 'b', 'c'].map((n) => signSession({ ...claims, sid: `sid-${n}-0123456` }, secret)),
    )
    for (const credential of credentials)
      expect('claims' in (await verifySession(credential, secret, NOW))).toBe(true)
    expect(importKey).toHaveBeenCalledTimes(1)
  })

  it('cached: a known credential is not verified again, yet its expiry and a new secret still count', async () => {
    const sessions = verifiedSessions()
    const credential = await signSession(claims, SECRET)
    expect(await sessions.verify(credential, SECRET, NOW)).toEqual({ claims })
    const verify = vi.spyOn(crypto.subtle, 'verify')
    expect(await sessions.verify(credential, SECRET, NOW + 1)).toEqual({ claims })
    expect(verify).not.toHaveBeenCalled()
    expect(await sessions.verify(credential, SECRET, NOW + 600)).toEqual({ problem: 'expired' })
    expect(await sessions.verify(credential, `${SECRET}-rotated`, NOW)).toEqual({
      problem: 'invalid',
    })
  })
})
