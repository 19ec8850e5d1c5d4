import { HTTPException } from 'hono/http-exception'
import { describe, expect, it } from 'vitest'
import { JwksCache, kidOf } from './jwks-cache.ts'

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

  it('a key server down at the first request: retried within seconds, backing off, one fetch at a time', async () => {
    const down = () => Promise.reject(new TypeError('fetch failed'))
    const w = world([down, down, down, keys('a')])
    const first = (await w.cache.keysFor('a').catch((e: unknown) => e)) as HTTPException
    expect(first.status).toBe(503)
    expect(first.res?.headers.get('retry-after')).toBe('1')
    // concurrent viewers during the backoff share the failure, no fetch each
    await Promise.all([1, 2, 3].map(() => w.cache.keysFor('a').catch(() => undefined)))
    expect(w.calls).toBe(1)
    w.advance(1000)
    const second = (await w.cache.keysFor('a').catch((e: unknown) => e)) as HTTPException
    expect(w.calls).toBe(2)
    expect(second.res?.headers.get('retry-after')).toBe('2')
    w.advance(2000)
    await w.cache.keysFor('a').catch(() => undefined)
    expect(w.calls).toBe(3)
    // the key server is back: served at the next attempt (4 s later), not 30 s later
    w.advance(4000)
    expect((await w.cache.keysFor('a'))[0]?.kid).toBe('a')
    expect(w.calls).toBe(4)
  })

  it('the cold backoff is bounded (8 s), and the long floor returns once keys exist', async () => {
    const down = () => Promise.reject(new TypeError('fetch failed'))
    const w = world([down, down, down, down, down, down, keys('a'), keys('a')])
    for (let i = 0; i < 6; i++) {
      await w.cache.keysFor('a').catch(() => undefined)
      w.advance(8000)
    }
    expect(w.calls).toBe(6)
    await w.cache.keysFor('a')
    expect(w.calls).toBe(7)
    // keys in hand: a forged kid waits the 30-s floor
    w.advance(8000)
    await w.cache.keysFor('forged')
    expect(w.calls).toBe(7)
  })

  it('keeps serving the last keys while the key server is down', async () => {
    const w = world([keys('a'), () => new Response('down', { status: 503 })])
    await w.cache.keysFor('a')
    w.advance(300_000)
    expect((await w.cache.keysFor('a'))[0]?.kid).toBe('a')
    expect(w.calls).toBe(2)
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
