import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { NOW_MS, testEnv } from '../test/helpers.ts'
import { createTokenApp } from './app.ts'
import { allow } from './authorize.ts'
import { memoryLimit, type RateLimiter, viewerKey } from './rate-limit.ts'

describe('memoryLimit', () => {
  it('allows `requests` per window and key, then says how long the window still runs', async () => {
    let now = 0
    const limit = memoryLimit({ requests: 2, periodSeconds: 10 }, () => now)
    expect(await limit.check('a')).toEqual({ allowed: true })
    now = 3_000
    expect(await limit.check('a')).toEqual({ allowed: true })
    expect(await limit.check('b')).toEqual({ allowed: true })
    now = 4_200
    expect(await limit.check('a')).toEqual({ allowed: false, retryAfter: 6 })
    now = 10_000
    expect(await limit.check('a')).toEqual({ allowed: true }) // a new window
  })

  it('forgets ended windows, so memory holds one period of viewers', async () => {
    let now = 0
    const limit = memoryLimit({ requests: 1, periodSeconds: 60 }, () => now)
    for (let i = 0; i < 1000; i++) await limit.check(`viewer-${i}`)
    expect(limit.size).toBe(1000)
    now = 61_000
    await limit.check('late')
    expect(limit.size).toBe(1)
  })
})

describe('viewerKey', () => {
  it('counts by JWT subject when there is one, else by address, IPv6 by /64', () => {
    expect(viewerKey('user-42', '203.0.113.7')).toBe('sub:user-42')
    expect(viewerKey('', '203.0.113.7')).toBe('net:203.0.113.7')
    expect(viewerKey(undefined, '203.0.113.7')).toBe('net:203.0.113.7')
    expect(viewerKey(undefined, '2001:db8:1:2::99')).toBe('net:2001:db8:1:2::/64')
  })
})

describe('GET /token with RATE_LIMIT_REQUESTS (in-memory limiter)', () => {
  const limited = (overrides: Record<string, string> = {}) => {
    let now = NOW_MS
    const app = createTokenApp({ now: () => now })
    const vars = testEnv({ RATE_LIMIT_REQUESTS: '2', RATE_LIMIT_PERIOD: '10', ...overrides })
    return {
      get: (ip: string | undefined, query = '', headers: Record<string, string> = {}) =>
        app.request(
          `/token?video=demo${query}`,
          { headers: { ...(ip && { 'x-real-ip': ip }), ...headers } },
          vars,
        ),
      wait: (ms: number) => {
        now += ms
      },
    }
  }

  it('answers 429 {error} with Retry-After, readable cross-origin, once a viewer is over', async () => {
    const { get, wait } = limited()
    expect((await get('203.0.113.7')).status).toBe(200)
    wait(1_500)
    expect((await get('203.0.113.7')).status).toBe(200)
    const over = await get('203.0.113.7', '', { origin: 'https://player.test' })
    expect(over.status).toBe(429)
    expect(over.headers.get('retry-after')).toBe('9')
    expect(over.headers.get('cache-control')).toBe('no-store')
    expect(over.headers.get('access-control-allow-origin')).toBe('https://player.test')
    expect(over.headers.get('access-control-expose-headers')).toContain('Retry-After')
    expect(await over.json()).toEqual({ error: 'too many token requests: retry after 9 s' })
    expect((await get('198.51.100.1')).status).toBe(200) // another viewer
    wait(8_500)
    expect((await get('203.0.113.7')).status).toBe(200) // the window ended
  })

  it('counts a whole IPv6 /64 as one viewer', async () => {
    const { get } = limited()
    expect((await get('2001:db8:1:2::1')).status).toBe(200)
    expect((await get('2001:db8:1:2::2')).status).toBe(200)
    expect((await get('2001:db8:1:2:ffff::3')).status).toBe(429)
    expect((await get('2001:db8:1:3::1')).status).toBe(200)
  })

  it('counts the caller, not the client_ip it asks for', async () => {
    const { get } = limited()
    for (const ip of ['192.0.2.1', '192.0.2.2']) {
      expect((await get('203.0.113.7', `&client_ip=${ip}`)).status).toBe(200)
    }
    expect((await get('203.0.113.7', '&client_ip=192.0.2.3')).status).toBe(429)
  })

  it('does not limit a caller it cannot tell apart (no IP header): they would all share one count', async () => {
    const { get } = limited()
    for (let i = 0; i < 4; i++) expect((await get(undefined)).status).toBe(200)
  })

  it('counts by JWT subject when the viewer is authenticated', async () => {
    const app = createTokenApp({
      now: () => NOW_MS,
      authorize: (c) => {
        c.set('jwtPayload', { sub: c.req.header('x-user') })
        return allow
      },
    })
    const vars = testEnv({ RATE_LIMIT_REQUESTS: '1' })
    const get = (user: string, ip: string) =>
      app.request('/token?video=demo', { headers: { 'x-user': user, 'x-real-ip': ip } }, vars)
    expect((await get('ann', '203.0.113.7')).status).toBe(200)
    expect((await get('bob', '203.0.113.7')).status).toBe(200) // same address, another viewer
    const again = await get('ann', '198.51.100.1') // same viewer, another address
    expect(again.status).toBe(429)
    expect(again.headers.get('retry-after')).toBe('60') // RATE_LIMIT_PERIOD defaults to 60
  })

  it('is off by default', async () => {
    const app = createTokenApp({ now: () => NOW_MS })
    for (let i = 0; i < 5; i++) {
      const res = await app.request(
        '/token?video=demo',
        { headers: { 'x-real-ip': '203.0.113.7' } },
        testEnv(),
      )
      expect(res.status).toBe(200)
    }
  })

  it.each([
    ['RATE_LIMIT_REQUESTS', '0'],
    ['RATE_LIMIT_REQUESTS', 'ten'],
    ['RATE_LIMIT_PERIOD', '30'],
  ])('a bad %s (%j) is a 500 naming it', async (variable, value) => {
    const app = createTokenApp({ now: () => NOW_MS })
    const res = await app.request('/token?video=demo', {}, testEnv({ [variable]: value }))
    expect(res.status).toBe(500)
    expect((await res.json<{ error: string }>()).error).toContain(variable)
  })
})

describe('GET /token with the Workers Rate Limiting binding', () => {
  it('uses TOKEN_RATE_LIMITER when bound (its own limit), Retry-After the whole period', async () => {
    // vitest.config.ts binds TEST_RATE_LIMITER: 3 requests per 10 s, workerd's real limiter
    const binding = (env as unknown as { TEST_RATE_LIMITER: RateLimiter }).TEST_RATE_LIMITER
    const app = createTokenApp({ now: () => NOW_MS })
    const vars = { ...testEnv({ RATE_LIMIT_PERIOD: '10' }), TOKEN_RATE_LIMITER: binding }
    const get = (ip: string) =>
      app.request('/token?video=demo', { headers: { 'x-real-ip': ip } }, vars)
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await get('203.0.113.99')).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    const over = await get('203.0.113.99')
    expect(over.headers.get('retry-after')).toBe('10')
    expect((await get('198.51.100.99')).status).toBe(200)
  })
})

describe('GET /token with a TOKEN_RATE_LIMITER that is no Rate Limiting binding', () => {
  const get = (limiter: unknown, path: string) =>
    createTokenApp({ now: () => NOW_MS, audit: () => {} }).request(
      path,
      { headers: { 'x-real-ip': '203.0.113.7' } },
      { ...testEnv(), TOKEN_RATE_LIMITER: limiter as RateLimiter },
    )

  it.each([
    ['a variable of that name', '300'],
    ['an object from "vars"', { limit: 300, period: 60 }],
    ['a limit() answering no success', { limit: async () => ({ allowed: true }) }],
  ])(
    '%s: every /token and /session is a 500 naming it, not "internal error"',
    async (_, limiter) => {
      for (const path of ['/token?video=demo', '/session?video=demo']) {
        const res = await get(limiter, path)
        expect(res.status).toBe(500)
        expect(await res.json()).toEqual({
          error:
            'server misconfigured: TOKEN_RATE_LIMITER must be a Rate Limiting binding (declare it under "ratelimits" in wrangler.jsonc, not "vars"; or remove it to count per isolate)',
        })
      }
    },
  )

  it('a binding that throws could not count: a 503 with Retry-After, never "allowed"', async () => {
    const failing: RateLimiter = { limit: () => Promise.reject(new Error('rate limiter down')) }
    const res = await get(failing, '/token?video=demo')
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('1')
    expect(await res.json()).toEqual({ error: 'shared state unavailable: retry after 1 s' })
  })
})
