import { findTokenPair } from '@proj/signing/url'
import type { TokenRecord } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, tokenBook } from '@proj/token-refresh/testing'
import { beforeEach, describe, expect, it } from 'vitest'
import { mediaRequest } from '../../test/harness.ts'
import type { RecordEntry } from '../protocol.ts'
import { RequestRewriter } from './request-rewriter.ts'

type Fault = number | 'hang' | 'network' | 'no-cors-headers' | undefined

/**
 * Two CDNs as one `fetch`: `a.cdn.test`/`a.cdn-ip.test` accept only CDN a's tokens, b's hosts
 * only b's (different secrets); each can be made to fail.
 */
const twoCdns = (time: ReturnType<typeof fakeTime>) => {
  const books = { a: tokenBook(time.clock), b: tokenBook(time.clock) }
  const faults: Record<'a' | 'b', Fault> = { a: undefined, b: undefined }
  const sent: string[] = []
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const id = url.host.split('.')[0] as 'a' | 'b'
    const fault = faults[id]
    const token = findTokenPair(url.href)?.token
    const method = init?.method ?? 'GET'
    if (fault === 'hang' || fault === 'network') {
      sent.push(`${method} ${id} ${token} ${fault}`)
      if (fault === 'network') throw new TypeError('Failed to fetch')
      return new Promise((_, reject) => {
        const signal = init?.signal
        signal?.addEventListener('abort', () => reject(signal.reason))
      })
    }
    if (fault === 'no-cors-headers') {
      // an error page without Access-Control-Allow-Origin: a network error in cors mode, an
      // opaque answer (status 0 to the worker) in no-cors mode
      sent.push(`${method} ${id} ${token} ${init?.mode}`)
      if (init?.mode === 'cors') throw new TypeError('Failed to fetch (CORS)')
      const opaque = new Response(null, { status: 502 })
      return Object.defineProperties(opaque, { type: { value: 'opaque' }, status: { value: 0 } })
    }
    const status = fault ?? books[id].verdict(url.href)
    sent.push(`${method} ${id} ${token} ${status}`)
    return new Response(status === 200 ? 'media' : null, { status })
  }
  return { books, faults, sent, fetch }
}

let time: ReturnType<typeof fakeTime>
let cdns: ReturnType<typeof twoCdns>
let worker: RequestRewriter
let record: TokenRecord
let getToken: () => Promise<TokenRecord>

const entryOf = (next: TokenRecord, ipBound = false): RecordEntry => ({
  record: next,
  ipBound,
  staleAt: next.expires * 1000 - 6000,
  expiresAt: next.expires * 1000,
  cdnTimeoutMs: 3000,
})

const backendOf = () => {
  const backend = fakeTokenBackend({ clock: time.clock, lifetime: 60, cdns: ['a', 'b'] })
  return async () => {
    const next = await backend.getToken()
    for (const cdn of next.cdns ?? []) {
      const book = cdns.books[cdn.id as 'a' | 'b']
      book.issue(cdn.token, cdn.expires)
      book.issue(cdn.token_ip, cdn.expires)
    }
    return next
  }
}

beforeEach(async () => {
  time = fakeTime()
  cdns = twoCdns(time)
  worker = new RequestRewriter({
    clients: { get: async () => undefined, matchAll: async () => [] },
    fetch: cdns.fetch,
    now: time.clock.now,
    timers: time.timers,
    cdn: { cooldownMs: 20_000 },
  })
  getToken = backendOf()
  record = await getToken()
  await worker.receive({ kind: 'token-refresh:record', entry: entryOf(record) }, 'tab-1')
})

/** The worker's answer for `file` of the video, requested on CDN a under an old pair. */
const play = async (file = 'v0/seg_001.ts', host = 'a.cdn.test') => {
  const url = `https://${host}/videos/12345_demo/tok0000old/1767225600/${file}`
  const pending = worker.handle(mediaRequest(url), 'tab-1')
  if (!pending) throw new Error('not handled')
  return pending
}

describe('RequestRewriter with two CDNs', () => {
  it.each([
    [503, 'server error'],
    [403, 'refusal of a fresh token'],
  ] as const)('sends the request again on b at once after a %i (%s) of a', async (status, _why) => {
    cdns.faults.a = status
    const response = await play()
    expect(response.status).toBe(200)
    expect(cdns.sent).toEqual([`GET a tok0001aplain ${status}`, 'GET b tok0001bplain 200'])
  })

  it('cancels the body of the failed answer it drops for b', async () => {
    let cancelled = 0
    const withBody: typeof fetch = async (input, init) => {
      const answer = await cdns.fetch(input, init)
      if (answer.status !== 503) return answer
      const body = new ReadableStream({ cancel: () => void cancelled++ })
      return new Response(body, { status: 503 })
    }
    worker = new RequestRewriter({
      clients: { get: async () => undefined, matchAll: async () => [] },
      fetch: withBody,
      now: time.clock.now,
      timers: time.timers,
      cdn: { cooldownMs: 20_000 },
    })
    await worker.receive({ kind: 'token-refresh:record', entry: entryOf(record) }, 'tab-1')
    cdns.faults.a = 503
    expect((await play()).status).toBe(200)
    expect(cancelled).toBe(1)
  })

  it('gives up an attempt with no first byte after the timeout and sends it to b', async () => {
    cdns.faults.a = 'hang'
    const pending = play()
    await time.advance(2999)
    expect(cdns.sent).toEqual(['GET a tok0001aplain hang'])
    await time.advance(1)
    expect((await pending).status).toBe(200)
    expect(cdns.sent).toEqual(['GET a tok0001aplain hang', 'GET b tok0001bplain 200'])
  })

  it('moves on when a, which answered in cors mode, sends an error page without CORS headers', async () => {
    expect((await play('v0/seg_000.ts')).status).toBe(200)
    cdns.faults.a = 'no-cors-headers'
    expect((await play()).status).toBe(200)
    expect(cdns.sent.slice(1)).toEqual(['GET a tok0001aplain cors', 'GET b tok0001bplain 200'])
  })

  it('on the last CDN, an error page without CORS headers reaches the element as its plain fetch would', async () => {
    cdns.faults.a = 503
    await play('v0/seg_000.ts') // a answered in cors mode (a 503), b too (200)
    cdns.faults.a = undefined
    await time.advance(20_000) // the probe brings the video back to a
    cdns.faults.a = 'no-cors-headers'
    cdns.faults.b = 'no-cors-headers'
    const response = await play()
    // b, the last CDN, in the element's own mode: the opaque answer, not a network error
    expect(response).toMatchObject({ type: 'opaque', status: 0 })
    expect(cdns.sent.slice(-3)).toEqual([
      'GET a tok0001aplain cors',
      'GET b tok0001bplain cors',
      'GET b tok0001bplain no-cors',
    ])
  })

  it('moves on after a network error too', async () => {
    cdns.faults.a = 'network'
    expect((await play()).status).toBe(200)
    expect(cdns.sent.at(-1)).toBe('GET b tok0001bplain 200')
  })

  it('stays on b, with b tokens only, and returns to a once a probe after the cooldown succeeds', async () => {
    cdns.faults.a = 503
    await play()
    for (const file of ['v0/seg_002.ts', 'v0/index.m3u8', 'key.bin']) await play(file)
    // a request still on a's host, or on b's ip host, goes to b's plain host with b's token
    await play('v0/seg_003.ts', 'a.cdn-ip.test')
    expect(cdns.sent.slice(1)).toEqual(Array(5).fill('GET b tok0001bplain 200'))
    await time.advance(20_000) // the probe: a still fails
    expect(cdns.sent.at(-1)).toBe('HEAD a tok0001aplain 503')
    cdns.faults.a = undefined
    await time.advance(19_999)
    await play('v0/seg_004.ts')
    expect(cdns.sent.at(-1)).toBe('GET b tok0001bplain 200')
    await time.advance(1) // the second probe succeeds
    expect(cdns.sent.at(-1)).toBe('HEAD a tok0001aplain 200')
    await play('v0/seg_005.ts')
    expect(cdns.sent.at(-1)).toBe('GET a tok0001aplain 200')
  })

  it('keeps b for a record that arrives during the outage, with the new b token', async () => {
    cdns.faults.a = 503
    await play()
    time.jump(1000)
    const next = await getToken()
    await worker.receive({ kind: 'token-refresh:record', entry: entryOf(next) }, 'tab-1')
    await play('v0/seg_002.ts')
    expect(cdns.sent.at(-1)).toBe('GET b tok0002bplain 200')
  })

  it('answers with b failure when b fails as well: each CDN once per request', async () => {
    cdns.faults.a = 503
    cdns.faults.b = 502
    const response = await play()
    expect(response.status).toBe(502)
    expect(cdns.sent).toEqual(['GET a tok0001aplain 503', 'GET b tok0001bplain 502'])
  })

  it('leaves a 404 alone: the content is missing, not the CDN failing', async () => {
    cdns.faults.a = 404
    expect((await play()).status).toBe(404)
    expect(cdns.sent).toEqual(['GET a tok0001aplain 404'])
  })

  it('never sends a token of one CDN to the other', async () => {
    cdns.faults.a = 503
    for (const host of ['a.cdn.test', 'a.cdn-ip.test', 'b.cdn.test', 'b.cdn-ip.test'])
      await play('v0/seg_001.ts', host)
    for (const line of cdns.sent) {
      const [, id, token] = line.split(' ')
      expect(token).toMatch(new RegExp(`^tok0001${id}plain$`))
    }
  })
})
