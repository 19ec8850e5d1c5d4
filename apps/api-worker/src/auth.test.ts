import { env } from 'cloudflare:test'
import { sign } from 'hono/jwt'
import { describe, expect, it } from 'vitest'
import { api, getJson, RESELLER } from '../test/client.ts'
import { findKey } from './auth.ts'

const NETWORKS = '/cloud/v1/availablenetworks/1/1?limit=1'
const now = () => Math.floor(Date.now() / 1000)

describe('authentication (spec 5)', () => {
  it.each([
    'APIKey test-client-key',
    'apikey test-client-key',
    'APIKEY second-client-key',
    RESELLER,
  ])('accepts %j', async (auth) => {
    expect((await api(NETWORKS, { auth })).status).toBe(200)
  })

  it.each([
    [null, 'Authentication credentials were not provided.'],
    ['APIKey wrong-key', 'Invalid API key.'],
    ['APIKey  test-client-key', 'Invalid Authorization header'],
    ['APIKey', 'Invalid Authorization header'],
    ['Token test-client-key', 'Unsupported authorization scheme "Token"'],
    ['Bearer not.a.jwt', 'Given token not valid'],
  ])('answers 401 for %j in the cloud error shape', async (auth, message) => {
    const { status, body } = await getJson(NETWORKS, { auth })
    expect(status).toBe(401)
    expect(body).toMatchObject({
      exception_class: 'AuthenticationFailed',
      request_id: expect.any(String),
    })
    expect(String(body.message)).toContain(message)
  })

  it('names both accepted schemes in WWW-Authenticate on every 401 (RFC 9110 §11.6.1)', async () => {
    const challenge = 'APIKey realm="api", Bearer realm="api"'
    for (const auth of [null, 'APIKey wrong-key', 'Bearer not.a.jwt', 'Basic dXNlcjpwYXNz']) {
      const res = await api(NETWORKS, { auth })
      expect(res.status, String(auth)).toBe(401)
      expect(res.headers.get('www-authenticate'), String(auth)).toBe(challenge)
    }
    const login = await api('/iam/auth/jwt/login', {
      method: 'POST',
      auth: null,
      body: JSON.stringify({ username: 'user@example.com', password: 'wrong-password' }),
      headers: { 'content-type': 'application/json' },
    })
    expect(login.status).toBe(401)
    expect(login.headers.get('www-authenticate')).toBe(challenge)
    expect((await api(NETWORKS)).headers.get('www-authenticate')).toBeNull()
  })

  it('accepts an access JWT and refuses a refresh JWT or an expired one', async () => {
    const claims = { sub: 'user@example.com', client_id: 1001, kind: 'client', iat: now() }
    const access = await sign(
      { ...claims, token_type: 'access', exp: now() + 60 },
      env.JWT_SECRET,
      'HS256',
    )
    const refresh = await sign(
      { ...claims, token_type: 'refresh', exp: now() + 60 },
      env.JWT_SECRET,
      'HS256',
    )
    const expired = await sign(
      { ...claims, token_type: 'access', exp: now() - 1 },
      env.JWT_SECRET,
      'HS256',
    )
    const forged = await sign(
      { ...claims, token_type: 'access', exp: now() + 60 },
      'another-secret-value',
      'HS256',
    )
    expect((await api(NETWORKS, { auth: `Bearer ${access}` })).status).toBe(200)
    expect((await api(NETWORKS, { auth: `bearer ${access}` })).status).toBe(200)
    for (const token of [refresh, expired, forged])
      expect((await api(NETWORKS, { auth: `Bearer ${token}` })).status).toBe(401)
  })

  describe('refuses an access JWT signed with the secret but not shaped as the login issues it', () => {
    const base = {
      sub: 'user@example.com',
      client_id: 1001,
      kind: 'client',
      token_type: 'access',
      iat: now(),
      exp: now() + 60,
    }
    const drop = (claim: keyof typeof base) =>
      Object.fromEntries(Object.entries(base).filter(([name]) => name !== claim))
    it.each([
      ['without exp (it never expired)', drop('exp')],
      ['with exp 0 (hono skips a falsy exp)', { ...base, exp: 0 }],
      ['with exp as text', { ...base, exp: String(now() + 60) }],
      ['without iat', drop('iat')],
      ['without client_id (/iam/clients/me answered without an id)', drop('client_id')],
      ['with client_id as text (echoed as text)', { ...base, client_id: '1001' }],
      ['with client_id 0', { ...base, client_id: 0 }],
      ['with client_id 1.5', { ...base, client_id: 1.5 }],
      ['without sub', drop('sub')],
      ['with an empty sub', { ...base, sub: '' }],
      ['with sub as a number', { ...base, sub: 7 }],
      ['with kind admin', { ...base, kind: 'admin' }],
      ['without kind', drop('kind')],
      ['without token_type', drop('token_type')],
    ])('%s: 401', async (_, claims) => {
      const token = await sign(claims, env.JWT_SECRET, 'HS256')
      const { status, body, res } = await getJson('/iam/clients/me', { auth: `Bearer ${token}` })
      expect(status).toBe(401)
      expect(body).toMatchObject({ exception_class: 'AuthenticationFailed' })
      expect(String(body.message)).toContain('Given token not valid')
      expect(res.headers.get('www-authenticate')).toBe('APIKey realm="api", Bearer realm="api"')
    })

    it('and a refresh JWT without exp is no refresh token', async () => {
      const { exp: _exp, ...claims } = { ...base, token_type: 'refresh' }
      const refresh = await sign(claims, env.JWT_SECRET, 'HS256')
      const res = await api('/iam/auth/jwt/refresh', {
        method: 'POST',
        auth: null,
        body: JSON.stringify({ refresh }),
        headers: { 'content-type': 'application/json' },
      })
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual({ errors: { refresh: ['Token is invalid or expired.'] } })
    })

    it('while the well-shaped token is accepted, extra claims and all, with a numeric id', async () => {
      const token = await sign({ ...base, jti: 'x' }, env.JWT_SECRET, 'HS256')
      const { status, body } = await getJson('/iam/clients/me', { auth: `Bearer ${token}` })
      expect(status).toBe(200)
      expect(body).toMatchObject({ id: 1001, auth_method: 'jwt', user: 'user@example.com' })
    })
  })

  it('findKey compares every key and reports the first match', async () => {
    expect(await findKey('b', ['a', 'b', 'b'])).toBe(1)
    expect(await findKey('c', ['a', 'b'])).toBe(-1)
    expect(await findKey('', [])).toBe(-1)
  })
})

describe('errors', () => {
  it('answers unknown routes with a 404 body in the family shape', async () => {
    const cloud = await getJson('/cloud/v9/nothing')
    expect(cloud.status).toBe(404)
    expect(cloud.body).toMatchObject({
      exception_class: 'NotFound',
      message: 'No route for GET /cloud/v9/nothing',
    })
    const edge = await getJson('/edge/v9/nothing')
    expect(edge.status).toBe(404)
    expect(edge.body).toEqual({ error: 'No route for GET /edge/v9/nothing' })
  })

  it('answers a wrong method on an existing route with 405 and Allow, in the family shape', async () => {
    const cloud = await api('/cloud/v1/availablenetworks/1/1', { method: 'DELETE' })
    expect(cloud.status).toBe(405)
    expect(cloud.headers.get('allow')).toBe('GET, HEAD')
    expect(await cloud.json()).toMatchObject({ exception_class: 'MethodNotAllowed' })
    const login = await api('/iam/auth/jwt/login', { method: 'GET', auth: null })
    expect(login.status).toBe(405)
    expect(login.headers.get('allow')).toBe('POST')
    expect(await login.json()).toMatchObject({
      errors: { non_field_errors: [expect.stringContaining('POST')] },
    })
    const edge = await api('/edge/v1/admin/apps', { method: 'PUT', auth: RESELLER })
    expect(edge.status).toBe(405)
    expect(await edge.json()).toEqual({ error: expect.stringContaining('use GET, HEAD') })
  })

  it('echoes the request id header in the body', async () => {
    const res = await api('/cloud/v1/availablenetworks/1/1?limit=0')
    const body = await res.json<{ request_id: string }>()
    expect(res.headers.get('x-request-id')).toBe(body.request_id)
  })
})
