import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisServer, reconnected, startRedisServer } from '../../test/redis-server.ts'
import { createTokenApp } from '../app.ts'
import type { TokenConfigInput } from '../config.ts'
import { cachedSessionStore, STORE_OUTAGE_TRUST_MS } from '../session/session-store.ts'
import { connectRedis, type RedisClient } from './connect-redis.ts'
import { redisLimit } from './redis-limit.ts'
import { redisSessionStore } from './redis-session-store.ts'

// The app on Node over a real redis-server, as `REDIS_URL` sets it up: sessions in Redis behind
// the 1-s instance cache, the viewer limit in Redis. Two clients stand for two instances.
let redis: RedisServer
let clients: RedisClient[] = []
let prefixes = 0
const freshPrefix = () => `app-${++prefixes}-${Date.now()}:`
const TIMEOUT_MS = 500
/** Longest a request may take while Redis is down: its timeout, and some slack for a busy machine. */
const BOUNDED_MS = TIMEOUT_MS + 1500

const config = (requests: number): TokenConfigInput => ({
  signing: {
    clientId: '12345',
    secretKey: 'redis-app-secret-7d1e',
    cdnDomain: 'cdn.redis.test',
    cdnDomainIp: 'cdn-ip.redis.test',
  },
  auth: { mode: 'none' },
  ipHeaders: ['x-real-ip'],
  rateLimit: { requests, periodSeconds: 60 },
  session: {
    secret: 'redis-app-session-secret-of-32-chars!',
    maxNetworks: 3,
    adminToken: 'redis-app-admin-token-of-32-chars-ok',
  },
})

/** One instance of the backend on `client`; the instance cache runs on `cacheNow`. */
const instance = (
  client: RedisClient,
  {
    prefix,
    requests = 100,
    cacheNow = Date.now,
  }: { prefix: string; requests?: number; cacheNow?: () => number },
) =>
  createTokenApp({
    config: config(requests),
    sessions: cachedSessionStore(
      redisSessionStore(client, { prefix, timeoutMs: TIMEOUT_MS }),
      1000,
      cacheNow,
    ),
    rateLimit: (limit) => redisLimit(client, { ...limit, prefix, timeoutMs: TIMEOUT_MS }),
    audit: () => {},
  })

type App = ReturnType<typeof instance>

const from = (ip: string) => ({ headers: { 'x-real-ip': ip } })

/** A request and how long it took. */
async function timed(app: App, path: string, init: RequestInit = {}) {
  const started = performance.now()
  const response = await app.request(`http://token.test${path}`, init)
  return { response, ms: performance.now() - started }
}

async function issueSession(app: App, ip: string): Promise<string> {
  const response = await app.request('http://token.test/session?video=redis-demo', from(ip))
  expect(response.status).toBe(200)
  const { session_url } = (await response.json()) as { session_url: string }
  return session_url.replace('http://token.test', '').replace(/master\.m3u8$/, 'seg_001.ts')
}

/** Expects the fail-closed answer: a JSON 503 with `Retry-After`, in bounded time. */
async function expectUnavailable(app: App, path: string, init: RequestInit = {}) {
  const { response, ms } = await timed(app, path, init)
  expect(response.status, path).toBe(503)
  expect(response.headers.get('retry-after'), path).toBe('1')
  expect(response.headers.get('content-type'), path).toMatch(/^application\/json/)
  const body = (await response.json()) as { error: string }
  expect(body).toEqual({ error: 'shared state unavailable: retry after 1 s' })
  expect(ms, path).toBeLessThan(BOUNDED_MS)
}

beforeAll(async () => {
  redis = await startRedisServer()
  clients = await Promise.all([1, 2].map(() => connectRedis(redis.url, { log: () => {} })))
})

afterAll(async () => {
  for (const client of clients) client.destroy()
  await redis?.stop()
})

describe('createTokenApp over Redis', () => {
  it('admits exactly `requests` of one viewer across two instances, then 429 with Retry-After', async () => {
    const prefix = freshPrefix()
    const apps = clients.map((client) => instance(client, { prefix, requests: 5 }))
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (apps[i % 2] as App).request(
          'http://token.test/token?video=redis-demo',
          from('203.0.113.7'),
        ),
      ),
    )
    const statuses = answers.map((answer) => answer.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(5)
    expect(statuses.filter((status) => status === 429)).toHaveLength(7)
    for (const answer of answers)
      if (answer.status === 429)
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(58)
    // both instances refuse the next one, and count another viewer apart
    for (const app of apps) {
      expect(
        (await app.request('http://token.test/session?video=redis-demo', from('203.0.113.7')))
          .status,
      ).toBe(429)
      expect(
        (await app.request('http://token.test/token?video=redis-demo', from('203.0.113.8'))).status,
      ).toBe(200)
    }
  })

  it('with Redis down: issuing and new networks fail closed (503), trusted sessions play on for a bounded time, and all recovers', async () => {
    const prefix = freshPrefix()
    let cacheOffsetMs = 0
    const cacheNow = () => Date.now() + cacheOffsetMs
    const [a, b] = clients.map((client) => instance(client, { prefix, cacheNow })) as [App, App]
    const playing = await issueSession(a, '203.0.113.10')
    const idle = await issueSession(a, '203.0.113.11')
    // instance b trusts `playing` (not revoked, a second network admitted): it has served it
    expect((await b.request(playing, from('203.0.113.10'))).status).toBe(302)
    expect((await b.request(playing, from('198.51.100.10'))).status).toBe(302)

    await redis.stop()
    await expectUnavailable(b, '/token?video=redis-demo', from('203.0.113.20'))
    await expectUnavailable(b, '/session?video=redis-demo', from('203.0.113.20'))
    await expectUnavailable(b, '/sessions/revoke', {
      method: 'POST',
      headers: {
        authorization: 'Bearer redis-app-admin-token-of-32-chars-ok',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ session_id: 'abcdefghijkl' }),
    })
    // past the 1-s trust but within the outage trust: the trusted session plays on, from the
    // networks b admitted; a new network of it, or a session b never saw, fails closed
    cacheOffsetMs = 2000
    for (const ip of ['203.0.113.10', '198.51.100.10']) {
      const { response, ms } = await timed(b, playing, from(ip))
      expect(response.status, ip).toBe(302)
      expect(ms).toBeLessThan(BOUNDED_MS)
    }
    await expectUnavailable(b, playing, from('192.0.2.10'))
    await expectUnavailable(b, idle, from('203.0.113.11'))
    await expectUnavailable(a, playing, from('203.0.113.10'))
    // the outage trust is over: the trusted session fails closed too
    cacheOffsetMs = 1000 + STORE_OUTAGE_TRUST_MS + 1000
    await expectUnavailable(b, playing, from('203.0.113.10'))

    await redis.start() // empty: what Redis held is gone without persistence
    await reconnected(clients)
    expect(
      (await b.request('http://token.test/token?video=redis-demo', from('203.0.113.20'))).status,
    ).toBe(200)
    expect((await issueSession(b, '203.0.113.21')).startsWith('/s/redis-demo/')).toBe(true)
    for (const ip of ['203.0.113.10', '198.51.100.10', '192.0.2.10'])
      expect((await b.request(playing, from(ip))).status, ip).toBe(302)
    expect((await a.request(idle, from('203.0.113.11'))).status).toBe(302)
  })

  it('a revocation answered 503 while Redis hangs never takes effect; its retry after recovery does', async () => {
    const prefix = freshPrefix()
    const [a, b] = clients.map((client) => instance(client, { prefix })) as [App, App]
    const playing = await issueSession(a, '203.0.113.30')
    // /s/<video>/<session JWT>/…: its sid claim
    const jwt = playing.split('/')[3] ?? ''
    const { sid } = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString())
    const revoke = {
      method: 'POST',
      headers: {
        authorization: 'Bearer redis-app-admin-token-of-32-chars-ok',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ session_id: sid }),
    }
    expect((await b.request(playing, from('203.0.113.30'))).status).toBe(302)
    // another revocation first: the server knows the script (else EVALSHA is refused, not run)
    const other = { ...revoke, body: JSON.stringify({ session_id: 'another-session-id' }) }
    expect((await a.request('http://token.test/sessions/revoke', other)).status).toBe(200)
    redis.pause() // connections stay open: what is sent now, Redis reads when it runs again
    try {
      await expectUnavailable(a, '/sessions/revoke', revoke)
    } finally {
      redis.resume()
    }
    await new Promise((resolve) => setTimeout(resolve, 1100)) // b's 1-s cache is over too
    expect((await b.request(playing, from('203.0.113.30'))).status).toBe(302)
    expect((await a.request('http://token.test/sessions/revoke', revoke)).status).toBe(200)
    // (at once through the instance that revoked; b within its 1-s cache)
    expect((await a.request(playing, from('203.0.113.30'))).status).toBe(403)
  })
})
