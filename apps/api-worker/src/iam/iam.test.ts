import { decode } from 'hono/jwt'
import { describe, expect, it } from 'vitest'
import { api, getJson, RESELLER } from '../../test/client.ts'
import { totp } from './totp.ts'

const post = (path: string, body: unknown) =>
  api(path, {
    auth: null,
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  })
const login = (body: unknown) => post('/iam/auth/jwt/login', body)

describe('POST /iam/auth/jwt/login (4.9)', () => {
  it('returns refresh and access JWTs that work as Bearer credentials', async () => {
    const res = await login({ username: 'user@example.com', password: 'emulator-password' })
    expect(res.status).toBe(200)
    const { access, refresh } = await res.json<{ access: string; refresh: string }>()
    const a = decode(access).payload as {
      exp: number
      iat: number
      token_type: string
      client_id: number
    }
    const r = decode(refresh).payload as { exp: number; iat: number; token_type: string }
    expect([a.token_type, a.exp - a.iat, a.client_id]).toEqual(['access', 3600, 1001])
    expect([r.token_type, r.exp - r.iat]).toEqual(['refresh', 86400])
    const me = await getJson('/iam/clients/me', { auth: `Bearer ${access}` })
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({
      id: 1001,
      auth_method: 'jwt',
      user: 'user@example.com',
      is_reseller: false,
    })
    expect((await getJson('/iam/clients/me', { auth: `Bearer ${refresh}` })).status).toBe(401)
  })

  it.each([
    [{}, { username: ['This field is required.'], password: ['This field is required.'] }],
    [{ username: 'user@example.com' }, { password: ['This field is required.'] }],
    [{ username: 'not-an-email', password: 'x' }, { username: ['Enter a valid email address.'] }],
    [
      { username: 'user@example.com', password: '' },
      { password: ['This field may not be blank.'] },
    ],
    [{ username: 'user@example.com', password: 1 }, { password: ['Not a valid string.'] }],
  ])('answers 400 {errors} for %j', async (body, errors) => {
    const res = await login(body)
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ errors })
  })

  it('answers 401 for a wrong password or unknown user, with the same message', async () => {
    for (const body of [
      { username: 'user@example.com', password: 'wrong' },
      { username: 'nobody@example.com', password: 'emulator-password' },
    ]) {
      const res = await login(body)
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual({
        errors: { non_field_errors: ['Unable to log in with provided credentials.'] },
      })
    }
  })

  it('requires a valid one-time password for a two-factor user', async () => {
    const base = { username: '2fa@example.com', password: 'emulator-password' }
    const missing = await login(base)
    expect(missing.status).toBe(400)
    expect(await missing.json()).toEqual({
      errors: {
        one_time_password: ['This field is required for accounts with two-factor authentication.'],
      },
    })
    const code = await totp('JBSWY3DPEHPK3PXP', Date.now())
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0')
    expect((await login({ ...base, one_time_password: wrong })).status).toBe(401)
    expect((await login({ ...base, one_time_password: '12' })).status).toBe(400)
    expect((await login({ ...base, one_time_password: code })).status).toBe(200)
  })

  it('computes RFC 6238 codes (test vector of the RFC, SHA-1, T = 59 s)', async () => {
    // Secret "12345678901234567890" in base32; the RFC's 8-digit 94287082 ends in 287082.
    expect(await totp('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', 59_000)).toBe('287082')
  })
})

describe('POST /iam/auth/jwt/refresh', () => {
  it('exchanges a refresh JWT for a new access JWT', async () => {
    const { refresh, access } = await (
      await login({ username: 'reseller@example.com', password: 'emulator-password' })
    ).json<{
      refresh: string
      access: string
    }>()
    const res = await post('/iam/auth/jwt/refresh', { refresh })
    expect(res.status).toBe(200)
    const body = await res.json<{ access: string }>()
    expect(Object.keys(body)).toEqual(['access'])
    expect((decode(body.access).payload as { kind: string }).kind).toBe('reseller')
    expect((await post('/iam/auth/jwt/refresh', { refresh: access })).status).toBe(401)
    expect(await (await post('/iam/auth/jwt/refresh', { refresh: 'junk' })).json()).toEqual({
      errors: { refresh: ['Token is invalid or expired.'] },
    })
    expect(await (await post('/iam/auth/jwt/refresh', {})).json()).toEqual({
      errors: { refresh: ['This field is required.'] },
    })
  })
})

describe('GET /iam/clients/me (4.10)', () => {
  it('describes the account of an API key, and 401s without one', async () => {
    expect((await getJson('/iam/clients/me')).body).toMatchObject({
      id: 1001,
      company_name: 'Northwind Media',
      auth_method: 'apikey',
      user: null,
    })
    expect((await getJson('/iam/clients/me', { auth: RESELLER })).body).toMatchObject({
      id: 5000,
      is_reseller: true,
      reseller_id: null,
    })
    expect((await getJson('/iam/clients/me', { auth: null })).status).toBe(401)
  })
})
