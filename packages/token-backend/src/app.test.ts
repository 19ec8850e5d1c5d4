import { exports } from 'cloudflare:workers'
import { describe, expect, it, vi } from 'vitest'
import { independentToken, NOW_MS, NOW_S, testEnv } from '../test/helpers.ts'
import { createTokenApp } from './app.ts'
import { type Authorizer, allow, deny } from './authorize.ts'
import type { TokenConfigInput } from './config.ts'

const app = createTokenApp({ now: () => NOW_MS })
const get = (query: string, headers: Record<string, string> = {}, env = testEnv()) =>
  app.request(`/token${query}`, { headers }, env)

describe('GET /token', () => {
  it('answers exactly the six fields of spec 2.11 with tokens that validate against an independent MD5', async () => {
    const res = await get('?video=demo&type=vod&expire=600', { 'x-real-ip': '203.0.113.7' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = await res.json<Record<string, unknown>>()
    const expires = NOW_S + 600
    const token = await independentToken(`12345_demo_test-secret_${expires}_`)
    const tokenIp = await independentToken(`12345_demo_test-secret_${expires}_203.0.113.7`)
    expect(Object.keys(body)).toEqual([
      'token',
      'token_ip',
      'client_ip',
      'expires',
      'url',
      'url_ip',
    ])
    expect(body).toEqual({
      token,
      token_ip: tokenIp,
      client_ip: '203.0.113.7',
      expires,
      url: `https://cdn.test/videos/12345_demo/${token}/${expires}/master.m3u8`,
      url_ip: `https://cdn-ip.test/videos/12345_demo/${tokenIp}/${expires}/master.m3u8`,
    })
    expect(Number.isInteger(body.expires)).toBe(true)
  })

  it.each([
    ['', '/cmaf/'],
    ['&type=live', '/cmaf/'],
    ['&type=VOD', '/cmaf/'],
    ['&type=vod', '/videos/'],
  ])('type %j → %s', async (type, root) => {
    const body = await (await get(`?video=demo${type}`)).json<{ url: string; url_ip: string }>()
    expect(new URL(body.url).pathname.startsWith(`${root}12345_demo/`)).toBe(true)
    expect(new URL(body.url_ip).pathname.startsWith(`${root}12345_demo/`)).toBe(true)
  })

  it.each([
    ['', NOW_S + 3600],
    ['&expire=60s', NOW_S + 3600],
    ['&expire=-5', NOW_S + 3600],
    ['&expire=%2B20', NOW_S + 20],
    ['&expire=1735689600', NOW_S + 1735689600],
    ['&expire=1900000000', 1900000000],
  ])('expiry %j → %d', async (expire, expires) => {
    expect((await (await get(`?video=demo${expire}`)).json<{ expires: number }>()).expires).toBe(
      expires,
    )
  })

  it('caps the lifetime when MAX_EXPIRE_SECONDS is set', async () => {
    const res = await get('?video=demo&expire=7200', {}, testEnv({ MAX_EXPIRE_SECONDS: '300' }))
    expect((await res.json<{ expires: number }>()).expires).toBe(NOW_S + 300)
  })

  describe('client IP', () => {
    const ipOf = async (query: string, headers: Record<string, string>, env = testEnv()) =>
      (await (await get(`?video=demo${query}`, headers, env)).json<{ client_ip: string }>())
        .client_ip

    it('takes client_ip over headers, then x-real-ip, then x-forwarded-for, then 0.0.0.0', async () => {
      const both = { 'x-real-ip': '198.51.100.1', 'x-forwarded-for': '192.0.2.1, 10.0.0.1' }
      expect(await ipOf('&client_ip=203.0.113.9', both)).toBe('203.0.113.9')
      expect(await ipOf('', both)).toBe('198.51.100.1')
      expect(await ipOf('', { 'x-forwarded-for': '192.0.2.1, 10.0.0.1' })).toBe('192.0.2.1')
      expect(await ipOf('', {})).toBe('0.0.0.0')
    })

    it('ignores a header entry that is not an IP', async () => {
      expect(await ipOf('', { 'x-real-ip': 'unknown', 'x-forwarded-for': '192.0.2.1' })).toBe(
        '192.0.2.1',
      )
    })

    it('follows IP_HEADERS (e.g. cf-connecting-ip on Workers) and normalises IPv6', async () => {
      const env = testEnv({ IP_HEADERS: 'CF-Connecting-IP' })
      expect(
        await ipOf('', { 'cf-connecting-ip': '2001:DB8::1', 'x-real-ip': '198.51.100.1' }, env),
      ).toBe('2001:db8::1')
      expect(await ipOf('', { 'x-real-ip': '198.51.100.1' }, env)).toBe('0.0.0.0')
    })
  })

  describe('bad input → 400 {error}', () => {
    it.each([
      ['', 'video is required'],
      ['?video=', 'video is required'],
      ['?video=a/b', 'video must be 1 to 128 characters'],
      ['?video=a%2Fb', 'video must be 1 to 128 characters'],
      ['?video=..', 'video must be 1 to 128 characters'],
      ['?video=a%3Fb', 'video must be 1 to 128 characters'],
      [`?video=${'x'.repeat(129)}`, 'video must be 1 to 128 characters'],
      ['?video=a&video=b', 'video must be given once'],
      ['?video=demo&client_ip=evil', 'client_ip must be a valid IPv4 or IPv6 address'],
      ['?video=demo&client_ip=1.2.3', 'client_ip must be a valid IPv4 or IPv6 address'],
      ['?video=demo&client_ip=1.2.3.4&client_ip=5.6.7.8', 'client_ip must be given once'],
      ['?video=demo&expire=1&expire=2', 'expire must be given once'],
    ])('%s', async (query, message) => {
      const res = await get(query)
      expect(res.status).toBe(400)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      const body = await res.json<{ error: string }>()
      expect(Object.keys(body)).toEqual(['error'])
      expect(body.error).toContain(message)
    })
  })

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 and Allow', async (method) => {
    const res = await app.request('/token?video=demo', { method }, testEnv())
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect(await res.json()).toEqual({ error: `method ${method} is not allowed: use GET` })
  })

  it('answers unknown paths with a JSON 404', async () => {
    const res = await app.request('/tokens', {}, testEnv())
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'no route for GET /tokens' })
  })

  it('answers /token/ (one trailing slash) exactly like /token; /token// is another path', async () => {
    const [plain, slash] = await Promise.all([
      get('?video=demo'),
      app.request('/token/?video=demo', {}, testEnv()),
    ])
    expect(slash.status).toBe(200)
    expect(await slash.json()).toEqual(await plain.json())
    expect((await app.request('/token/', { method: 'POST' }, testEnv())).status).toBe(405)
    expect((await app.request('/token//?video=demo', {}, testEnv())).status).toBe(404)
  })

  it('answers OPTIONS without Origin with 204 and Allow, no CORS headers', async () => {
    const res = await app.request('/token', { method: 'OPTIONS' }, testEnv())
    expect(res.status).toBe(204)
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([])
  })
})

describe('CORS', () => {
  const origin = 'https://player.test'

  it('allows a configured origin and varies on Origin', async () => {
    const res = await get('?video=demo', { origin })
    expect(res.headers.get('access-control-allow-origin')).toBe(origin)
    expect(res.headers.get('vary')).toContain('Origin')
  })

  it('sends and exposes the Date the record was signed at, for clock-skew correction', async () => {
    const res = await get('?video=demo', { origin })
    expect(res.headers.get('access-control-expose-headers')).toBe('Date,Retry-After')
    const { expires } = (await res.json()) as { expires: number }
    expect(Date.parse(res.headers.get('date') ?? '') / 1000).toBe(expires - 3600)
  })

  it('gives no CORS header to another origin, or when ALLOWED_ORIGINS is unset', async () => {
    expect(
      (await get('?video=demo', { origin: 'https://evil.test' })).headers.get(
        'access-control-allow-origin',
      ),
    ).toBeNull()
    const unset = testEnv({ ALLOWED_ORIGINS: undefined })
    expect(
      (await get('?video=demo', { origin }, unset)).headers.get('access-control-allow-origin'),
    ).toBeNull()
  })

  it('answers a preflight with the allowed method and the Authorization header', async () => {
    const res = await app.request(
      '/token',
      {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      },
      testEnv(),
    )
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(origin)
    expect(res.headers.get('access-control-allow-methods')).toBe('GET')
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'authorization',
    )
    // and what every answer of the backend carries, as a preflight of another origin gets it
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('x-request-id')).toMatch(/\S/)
  })

  it.each([
    ['ALLOWED_ORIGINS unset', testEnv({ ALLOWED_ORIGINS: undefined }), origin],
    ['an origin not allowed', testEnv(), 'https://evil.test'],
  ])('a preflight with %s: 204 with Allow and no CORS header at all', async (_, env, from) => {
    const res = await app.request(
      '/token',
      {
        method: 'OPTIONS',
        headers: {
          origin: from,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      },
      env,
    )
    expect(res.status).toBe(204)
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([])
  })

  it('allows any origin with "*" (the local default)', async () => {
    const res = await get(
      '?video=demo',
      { origin: 'http://localhost:5173' },
      testEnv({ ALLOWED_ORIGINS: '*' }),
    )
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('adds CORS headers to errors too, so the player can read them', async () => {
    const res = await get('', { origin })
    expect(res.status).toBe(400)
    expect(res.headers.get('access-control-allow-origin')).toBe(origin)
  })
})

describe('custom authorizer', () => {
  it('is consulted with the validated video and can deny with 401 or 403', async () => {
    const seen: string[] = []
    const custom = createTokenApp({
      now: () => NOW_MS,
      authorize: (c, video) => {
        seen.push(video)
        if (!c.req.header('cookie')) return deny(401, 'sign in first')
        return video.startsWith('free-') ? allow : deny(403, 'members only')
      },
    })
    const call = (q: string, headers: Record<string, string> = {}) =>
      custom.request(`/token${q}`, { headers }, testEnv())
    expect((await call('?video=free-1')).status).toBe(401)
    const forbidden = await call('?video=paid-1', { cookie: 's=1' })
    expect(forbidden.status).toBe(403)
    expect(await forbidden.json()).toEqual({ error: 'members only' })
    expect((await call('?video=free-1', { cookie: 's=1' })).status).toBe(200)
    expect((await call('?video=a/b', { cookie: 's=1' })).status).toBe(400)
    expect(seen).toEqual(['free-1', 'paid-1', 'free-1'])
  })

  describe('AUTH_MODE may be left out: the authorizer decides alone', () => {
    const members: Authorizer = (c) =>
      c.req.header('x-member') === 'yes' ? allow : deny(403, 'members only')
    const signing = { clientId: '1', secretKey: 's', cdnDomain: 'a.test', cdnDomainIp: 'b.test' }

    it('from the variables (Workers vars): allow and deny as it says, on /token and /session', async () => {
      const configs: unknown[] = []
      const custom = createTokenApp({
        now: () => NOW_MS,
        audit: () => undefined,
        authorize: (c, video) => {
          configs.push(c.get('tokenConfig'))
          return members(c, video)
        },
      })
      // one env object, as Workers pass to every request of an isolate
      const env = testEnv({ AUTH_MODE: undefined })
      expect(env).not.toHaveProperty('AUTH_MODE')
      const call = (path: string, headers: Record<string, string> = {}) =>
        custom.request(`https://tokens.test${path}`, { headers }, env)

      const allowed = await call('/token?video=demo&type=vod', { 'x-member': 'yes' })
      expect(allowed.status).toBe(200)
      const record = await allowed.json<{ token: string; expires: number }>()
      expect(record.token).toBe(await independentToken(`12345_demo_test-secret_${record.expires}_`))
      const denied = await call('/token?video=demo')
      expect(denied.status).toBe(403)
      expect(await denied.json()).toEqual({ error: 'members only' })
      expect((await call('/session?video=demo', { 'x-member': 'yes' })).status).toBe(200)
      expect((await call('/session?video=demo')).status).toBe(403)

      // no built-in check behind it, and the configuration was read once for the env object
      expect(configs).toHaveLength(4)
      expect(configs[0]).toMatchObject({ auth: undefined, signing: { clientId: '12345' } })
      for (const config of configs) expect(config).toBe(configs[0])
    })

    it('from a config object without auth: allow and deny as it says', async () => {
      const custom = createTokenApp({
        now: () => NOW_MS,
        audit: () => undefined,
        authorize: members,
        config: { signing },
      })
      const allowed = await custom.request('/token?video=demo', { headers: { 'x-member': 'yes' } })
      expect(allowed.status).toBe(200)
      expect(await allowed.json()).toMatchObject({
        url: expect.stringContaining('https://a.test/'),
      })
      const denied = await custom.request('/token?video=demo')
      expect(denied.status).toBe(403)
      expect(await denied.json()).toEqual({ error: 'members only' })
    })

    it('given, AUTH_MODE (auth) is still validated, naming the variable or field', async () => {
      const custom = createTokenApp({ authorize: members })
      for (const [overrides, message] of [
        [{ AUTH_MODE: 'basic' }, 'server misconfigured: AUTH_MODE must be "jwt"'],
        [{ AUTH_MODE: 'jwt' }, 'server misconfigured: JWT_SECRET or JWT_JWKS_URL or JWT_JWKS'],
      ] as const) {
        const res = await custom.request('/token?video=demo', {}, testEnv(overrides))
        expect(res.status).toBe(500)
        expect((await res.json<{ error: string }>()).error).toContain(message)
      }
      expect(() =>
        createTokenApp({ authorize: members, config: { signing, auth: { mode: 'jwt' } } }),
      ).toThrow('server misconfigured: config.auth.secret.key or config.auth.jwks.url')
    })

    it('without an authorizer, both are still refused (closed by default)', async () => {
      const res = await app.request('/token?video=demo', {}, testEnv({ AUTH_MODE: undefined }))
      expect(res.status).toBe(500)
      expect(await res.json()).toEqual({
        error:
          'server misconfigured: AUTH_MODE is required: it must be "jwt" (viewers need a JWT: set JWT_SECRET, JWT_JWKS_URL or JWT_JWKS) or "none" (anyone may get tokens)',
      })
      // what JavaScript (no type check) can pass
      const config = { signing } as TokenConfigInput
      expect(() => createTokenApp({ config })).toThrow(
        'server misconfigured: config.auth.mode is required',
      )
    })
  })
})

describe('the deployed entry point (wrangler.jsonc + src/worker.ts)', () => {
  it('serves /token through the Workers runtime', async () => {
    const res = await exports.default.fetch('https://token.test/token?video=demo&type=vod', {
      headers: { 'x-real-ip': '198.51.100.20' },
    })
    expect(res.status).toBe(200)
    const body = await res.json<{
      client_ip: string
      url: string
      expires: number
      token_ip: string
    }>()
    expect(body.client_ip).toBe('198.51.100.20')
    expect(body.url).toMatch(
      /^https:\/\/cdn\.test\/videos\/12345_demo\/[A-Za-z0-9_-]{22}\/\d+\/master\.m3u8$/,
    )
    expect(body.token_ip).toBe(
      await independentToken(`12345_demo_test-secret_${body.expires}_198.51.100.20`),
    )
  })
})

describe('the issuance audit log', () => {
  it('writes one JSON line per issued token: the join fields, never the secret, tokens or URLs', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined)
    try {
      const res = await exports.default.fetch(
        'https://tokens.test/token?video=demo&type=vod&expire=60',
        {
          headers: { 'x-real-ip': '203.0.113.9', 'x-request-id': 'req-123' },
        },
      )
      const record = await res.json<{
        token: string
        token_ip: string
        expires: number
        url: string
      }>()
      const lines = log.mock.calls
        .map(([line]) => String(line))
        .filter((line) => line.includes('token_issued'))
      expect(lines).toHaveLength(1)
      const entry = JSON.parse(lines[0] ?? '{}')
      expect(entry).toEqual({
        event: 'token_issued',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        video: 'demo',
        type: 'vod',
        expires: record.expires,
        path: '/videos/12345_demo/',
        client_ip: '203.0.113.9',
        request_id: 'req-123',
      })
      expect(res.headers.get('x-request-id')).toBe('req-123')
      for (const secret of ['test-secret', record.token, record.token_ip, record.url])
        expect(lines[0]).not.toContain(secret)
    } finally {
      log.mockRestore()
    }
  })
})

describe('headers on every answer', () => {
  it('no-store, nosniff and a request ID on tokens and on errors alike', async () => {
    const answers = await Promise.all(
      [
        ['/token?video=demo', 'GET'],
        ['/token', 'GET'],
        ['/nowhere', 'GET'],
        ['/token?video=demo', 'POST'],
      ].map(([path = '', method = 'GET']) =>
        exports.default.fetch(`https://tokens.test${path}`, {
          method,
          headers: { 'x-real-ip': '203.0.113.9' },
        }),
      ),
    )
    expect(answers.map((res) => res.status)).toEqual([200, 400, 404, 405])
    for (const res of answers) {
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  it('a request ID that is not a safe token is replaced, never echoed', async () => {
    const res = await exports.default.fetch('https://tokens.test/token?video=demo', {
      headers: { 'x-request-id': 'a b<script>' },
    })
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('CORS answers keep them, plus the CORS headers', async () => {
    const res = await exports.default.fetch('https://tokens.test/token?video=demo', {
      headers: { origin: 'https://player.test' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe('https://player.test')
    expect(res.headers.get('access-control-expose-headers')).toContain('Retry-After')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })
})
