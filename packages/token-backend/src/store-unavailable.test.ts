import { describe, expect, it } from 'vitest'
import { testEnv } from '../test/helpers.ts'
import { createTokenApp } from './app.ts'
import type { RateLimitConfig, ViewerLimit } from './rate-limit.ts'
import { memorySessionStore, type SessionStore } from './session/session-store.ts'
import { StoreUnavailableError } from './store-unavailable.ts'

// In workerd: the 503 of an unavailable store is the app's, whatever the runtime and the store
// (here stores of the caller's own that throw it).
const down = () => new StoreUnavailableError('db.internal:5432 refused', { retryAfter: 7 })
const from = (ip: string) => ({ headers: { 'x-real-ip': ip } })

async function expectUnavailable(res: Response) {
  expect(res.status).toBe(503)
  expect(res.headers.get('retry-after')).toBe('7')
  // the store's detail (a host, a port) stays inside
  expect(await res.json()).toEqual({ error: 'shared state unavailable: retry after 7 s' })
}

describe('StoreUnavailableError', () => {
  it("makes a session store's outage a JSON 503 with Retry-After, CORS kept, for a new network and a revocation check", async () => {
    const memory = memorySessionStore()
    let available = true
    const guard =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      (...args: A) =>
        available ? call(...args) : Promise.reject(down())
    const store: SessionStore = {
      admitNetwork: guard(memory.admitNetwork),
      isRevoked: guard(memory.isRevoked),
      revokeSession: guard(memory.revokeSession),
      revokeViewer: guard(memory.revokeViewer),
    }
    const app = createTokenApp({ sessions: store, audit: () => {} })
    const env = testEnv()
    const issued = await app.request(
      'https://tokens.test/session?video=demo&type=vod',
      from('203.0.113.7'),
      env,
    )
    const { session_url } = await issued.json<{ session_url: string }>()
    const leaf = session_url.replace(/master\.m3u8$/, 'seg_001.ts')
    expect((await app.request(leaf, from('203.0.113.7'), env)).status).toBe(302)

    available = false
    for (const ip of ['203.0.113.7', '198.51.100.7']) {
      const res = await app.request(leaf, from(ip), env)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      await expectUnavailable(res)
    }
    available = true
    expect((await app.request(leaf, from('198.51.100.7'), env)).status).toBe(302)
  })

  it('makes a rate limit that cannot count a 503 for /token and /session: never "allowed"', async () => {
    const app = createTokenApp({
      audit: () => {},
      rateLimit: () => ({ check: () => Promise.reject(down()) }),
    })
    const env = testEnv({ RATE_LIMIT_REQUESTS: '3' })
    for (const path of ['/token?video=demo', '/session?video=demo'])
      await expectUnavailable(
        await app.request(`https://tokens.test${path}`, from('203.0.113.7'), env),
      )
  })
})

describe('createTokenApp({ rateLimit })', () => {
  it('uses the given limit, made once per configuration from its requests and period, instead of memory', async () => {
    const made: RateLimitConfig[] = []
    const keys: string[] = []
    const rateLimit = (limit: RateLimitConfig): ViewerLimit => {
      made.push(limit)
      return {
        async check(key) {
          keys.push(key)
          return keys.length <= 1 ? { allowed: true } : { allowed: false, retryAfter: 42 }
        },
      }
    }
    const app = createTokenApp({ audit: () => {}, rateLimit })
    const env = testEnv({ RATE_LIMIT_REQUESTS: '50', RATE_LIMIT_PERIOD: '10' })
    const ask = () => app.request('https://tokens.test/token?video=demo', from('203.0.113.7'), env)
    expect((await ask()).status).toBe(200)
    const refused = await ask()
    // memory would have admitted 50: this is the given limit's verdict
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('42')
    expect(made).toEqual([{ requests: 50, periodSeconds: 10 }])
    expect(keys).toEqual(['net:203.0.113.7', 'net:203.0.113.7'])
  })

  it('is not asked when no limit is configured', async () => {
    let made = 0
    const app = createTokenApp({
      audit: () => {},
      rateLimit: () => {
        made++
        return { check: async () => ({ allowed: false, retryAfter: 1 }) }
      },
    })
    const res = await app.request(
      'https://tokens.test/token?video=demo',
      from('203.0.113.7'),
      testEnv(),
    )
    expect(res.status).toBe(200)
    expect(made).toBe(0)
  })
})
