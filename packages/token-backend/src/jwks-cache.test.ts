import { HTTPException } from 'hono/http-exception'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loopbackKeyServer, scriptedKeyServer, type TestKeyServer } from '../test/jwks.ts'
import { JwksCache, type JwksCacheOptions, kidOf } from './jwks-cache.ts'

const URL_ = 'https://auth.test/jwks.json'
const key = (kid: string) => ({ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid })

/** A key server scripted per call; time moves only when the test says. */
const world = (answers: (() => Response | Promise<Response>)[]) => {
  let now = 1_000_000
  let calls = 0
  const cache = new JwksCache({
    url: URL_,
    now: () => now,
    timeoutMs: 200,
    retryMs: 50,
    fetch: async () => {
      const answer = answers[Math.min(calls, answers.length - 1)]
      calls++
      if (!answer) throw new Error('no answer scripted')
      return answer()
    },
  })
  return {
    cache,
    get calls() {
      return calls
    },
    advance: (ms: number) => {
      now += ms
    },
  }
}
const keys =
  (...kids: string[]) =>
  () =>
    Response.json({ keys: kids.map(key) })

describe('JwksCache', () => {
  it('fetches once per TTL however many requests come (50 requests → 1 fetch)', async () => {
    const w = world([keys('a')])
    for (let i = 0; i < 50; i++) expect((await w.cache.keysFor('a'))[0]?.kid).toBe('a')
    expect(w.calls).toBe(1)
    w.advance(300_000)
    await w.cache.keysFor('a')
    expect(w.calls).toBe(2)
  })

  it('refetches for an unknown kid at most once per interval (forged tokens cannot flood it)', async () => {
    const w = world([keys('a'), keys('a', 'b')])
    await w.cache.keysFor('a')
    for (let i = 0; i < 20; i++) await w.cache.keysFor('forged')
    expect(w.calls).toBe(1) // the first fetch was < 30 s ago
    w.advance(30_000)
    expect((await w.cache.keysFor('b')).map((k) => k.kid)).toEqual(['a', 'b'])
    expect(w.calls).toBe(2)
  })

  it.each([
    ['down', () => Promise.reject(new TypeError('fetch failed'))],
    ['answering 500', () => new Response('oops', { status: 500 })],
    ['answering HTML', () => new Response('<html>', { status: 200 })],
    [
      'slow (past the timeout)',
      () =>
        new Promise<Response>((_, reject) =>
          setTimeout(() => reject(new DOMException('timeout', 'TimeoutError')), 250),
        ),
    ],
  ])(
    "a key server %s with no keys yet → 503 with Retry-After, not the viewer's 401",
    async (_, answer) => {
      const w = world([answer])
      const error = await w.cache.keysFor('a').catch((e: unknown) => e)
      expect(error).toBeInstanceOf(HTTPException)
      expect((error as HTTPException).status).toBe(503)
      expect(Number((error as HTTPException).res?.headers.get('retry-after'))).toBeGreaterThan(0)
    },
  )

  it('keeps serving the last keys while the key server is down', async () => {
    const w = world([keys('a'), () => new Response('down', { status: 503 })])
    await w.cache.keysFor('a')
    w.advance(300_000)
    expect((await w.cache.keysFor('a'))[0]?.kid).toBe('a')
    expect(w.calls).toBe(2)
  })

  it.each([
    ['entries that are no keys', { keys: [null, 'x', 42, [], { kid: 'b' }] }],
    ['a kid that is not text', { keys: [{ kty: 'EC', kid: 7 }] }],
    ['no keys array', { keys: { a: 1 } }],
    ['no object', [{ kty: 'EC', kid: 'b' }]],
  ])('a broken key set (%s) does not replace the keys in hand', async (_, body) => {
    const w = world([keys('a'), () => Response.json(body)])
    await w.cache.keysFor('a')
    w.advance(300_000)
    expect(await w.cache.keysFor('b')).toEqual([key('a')])
  })

  it('skips the entries of a key set that are no keys and keeps the others', async () => {
    const w = world([() => Response.json({ keys: [null, { kid: 'x' }, key('a'), 'junk'] })])
    expect(await w.cache.keysFor('a')).toEqual([key('a')])
  })
})

// The key server as the runtime sees it: a fetch seam everywhere, and on Node (this file runs
// there through jwks-cache.node.test.ts) also a real HTTP server on a loopback port, which workerd
// cannot open.
const onWorkerd = typeof navigator !== 'undefined' && navigator.userAgent === 'Cloudflare-Workers'
type KeyServerKind = [name: string, make: () => Promise<TestKeyServer>]
const seam: KeyServerKind = ['a fetch seam', async () => scriptedKeyServer()]
const loopback: KeyServerKind = ['a real HTTP server on loopback', () => loopbackKeyServer()]
const keyServers = onWorkerd ? [seam] : [seam, loopback]
const RETRY_MS = 200
const TIMEOUT_MS = 300
/**
 * The longest a viewer may wait: a turn, a fetch, the cache's grace for a lost fetch, and slack
 * for a machine busy with other tests.
 */
const LONGEST_WAIT_MS = RETRY_MS + TIMEOUT_MS + 250 + 400
const cacheOf = (server: TestKeyServer, options: Partial<JwksCacheOptions> = {}) =>
  new JwksCache({
    url: server.url,
    retryMs: RETRY_MS,
    timeoutMs: TIMEOUT_MS,
    ...(server.fetch && { fetch: server.fetch }),
    ...options,
  })
/** How a request for kid `a` ended, and how long it took. */
const ask = async (cache: JwksCache) => {
  const started = Date.now()
  const outcome = await cache.keysFor('a').then(
    (keys) => ({ status: 200, kid: keys[0]?.kid, retryAfter: undefined }),
    (error: unknown) => {
      if (!(error instanceof HTTPException)) throw error
      return {
        status: error.status,
        kid: undefined,
        retryAfter: error.res?.headers.get('retry-after'),
      }
    },
  )
  return { ...outcome, ms: Date.now() - started }
}

describe.each(keyServers)('JwksCache with %s as the key server: no refusal window', (_, make) => {
  let server: TestKeyServer
  beforeEach(async () => {
    server = await make()
  })
  afterEach(() => server.close())

  it.each(['down', 'error'] as const)(
    'key server %s: 503 + Retry-After in bounded time; back: the very next request gets the keys',
    async (mode) => {
      server.mode = mode
      const cache = cacheOf(server)
      for (let i = 0; i < 3; i++) {
        const outage = await ask(cache)
        expect(outage).toMatchObject({ status: 503, retryAfter: '1' })
        expect(outage.ms).toBeLessThan(LONGEST_WAIT_MS)
      }
      server.mode = 'up'
      const hits = server.hits
      expect(await ask(cache)).toMatchObject({ status: 200, kid: 'a' })
      expect(server.hits - hits).toBe(1)
    },
  )

  it('key server back: 50 concurrent viewers all get the keys, from one fetch', async () => {
    server.mode = 'down'
    const cache = cacheOf(server)
    for (let i = 0; i < 3; i++) expect((await ask(cache)).status).toBe(503)
    server.mode = 'up'
    const hits = server.hits
    const answers = await Promise.all(Array.from({ length: 50 }, () => ask(cache)))
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(50)
    expect(server.hits - hits).toBe(1)
  })

  it('during an outage, viewers share fetches: one at a time, at most one per retryMs', async () => {
    server.mode = 'down'
    const cache = cacheOf(server)
    const started = Date.now()
    const asked: Promise<{ status: number; ms: number }>[] = []
    for (let wave = 0; wave < 10; wave++) {
      for (let i = 0; i < 5; i++) asked.push(ask(cache))
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const answers = await Promise.all(asked)
    const elapsed = Date.now() - started
    expect(answers.every((answer) => answer.status === 503)).toBe(true)
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(LONGEST_WAIT_MS)
    expect(server.hits).toBeLessThanOrEqual(Math.ceil(elapsed / RETRY_MS) + 1)
    expect(server.hits).toBeGreaterThanOrEqual(2) // yet the key server is asked again and again
  })

  it('a slow fetch timed out (503), then the key server answers: the next request gets the keys', async () => {
    server.mode = 'slow'
    const cache = cacheOf(server)
    const slow = await ask(cache)
    expect(slow.status).toBe(503)
    expect(slow.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50)
    expect(slow.ms).toBeLessThan(LONGEST_WAIT_MS)
    server.mode = 'up'
    expect(await ask(cache)).toMatchObject({ status: 200, kid: 'a' })
  })
})

describe('JwksCache: a viewer is answered by a fetch that started after it came', () => {
  it('joining a fetch that had already left and then failed, it waits for the next one', async () => {
    let answerFirst: (response: Response) => void = () => {}
    let fetches = 0
    const cache = new JwksCache({
      url: URL_,
      retryMs: RETRY_MS,
      timeoutMs: TIMEOUT_MS,
      fetch: () => {
        fetches++
        if (fetches > 1) return Promise.resolve(Response.json({ keys: [key('a')] }))
        return new Promise<Response>((resolve) => {
          answerFirst = resolve
        })
      },
    })
    const first = ask(cache) // its fetch leaves at once
    const second = ask(cache) // joins that fetch, which left before it came
    // the key server answers the first fetch with an error, and is back since
    answerFirst(new Response('down', { status: 500 }))
    expect((await first).status).toBe(503) // its own fetch failed
    expect(await second).toMatchObject({ status: 200, kid: 'a' })
    expect(fetches).toBe(2)
  })

  it('a fetch that never ends (Workers cancelled its request) holds no viewer past the bound', async () => {
    const server = scriptedKeyServer()
    server.mode = 'hang'
    const cache = cacheOf(server)
    const lost = await ask(cache)
    expect(lost.status).toBe(503)
    expect(lost.ms).toBeLessThan(LONGEST_WAIT_MS)
    server.mode = 'up'
    expect(await ask(cache)).toMatchObject({ status: 200, kid: 'a' })
  })
})

describe('kidOf', () => {
  it('reads the kid of a bearer JWT header, and nothing else', () => {
    const header = btoa(JSON.stringify({ alg: 'ES256', kid: 'k1' })).replace(/=+$/, '')
    expect(kidOf(`Bearer ${header}.payload.sig`)).toBe('k1')
    expect(kidOf('Bearer not-a-jwt')).toBeUndefined()
    expect(kidOf(undefined)).toBeUndefined()
  })
})
