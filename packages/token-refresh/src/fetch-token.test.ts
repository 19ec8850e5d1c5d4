// @vitest-environment node
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Storage } from 'happy-dom'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { fetchToken, retryAfterMs, serverDateOf, TokenFetchError } from './fetch-token.ts'
import { isStreamRefusal } from './recovery.ts'
import { StreamLimitError } from './stream-limit.ts'

const record = {
  token: 'abcdefgh',
  token_ip: 'ijklmnop',
  client_ip: '127.0.0.1',
  expires: 1795348820,
  url: 'https://cdn.test/videos/1_demo/abcdefgh/1795348820/master.m3u8',
  url_ip: 'https://cdn-ip.test/videos/1_demo/ijklmnop/1795348820/master.m3u8',
}
const serverDate = 'Sun, 22 Nov 2026 12:00:00 GMT'

let server: Server
let base: string
/** The query of each request, as the server received it. */
const queries: URLSearchParams[] = []
/** The streams `video=adopting` refuses as ended (evicted). */
const endedStreams = new Set<string>()
/** The 409 bodies of the stream-limit contract, by `video`. */
const refusals: Record<string, unknown> = {
  full: {
    error: 'stream limit reached: 2 of 2 streams are playing',
    code: 'stream_limit',
    limit: 2,
    streams: [
      { started_at: '2026-11-26T10:00:00Z', last_seen_at: '2026-11-26T10:01:10Z' },
      { started_at: '2026-11-26T10:00:30Z', last_seen_at: 'not a date' },
    ],
  },
  evicted: { error: 'this stream was ended', code: 'stream_ended', reason: 'evicted' },
  conflict: { error: 'some other conflict', code: 'other' },
}
beforeAll(async () => {
  // A real HTTP server: the Date header is what a real backend sends, not a stub's property.
  server = createServer((request, response) => {
    response.setHeader('date', serverDate)
    response.setHeader('content-type', 'application/json')
    const query = new URL(request.url ?? '/', 'http://backend').searchParams
    queries.push(query)
    const refusal = refusals[query.get('video') ?? '']
    const stream = query.get('stream')
    if (query.get('video') === 'adopting') {
      // a backend with stream limits: adopts the id it is given, refuses the ended ones
      response.statusCode = endedStreams.has(stream ?? '') ? 409 : 200
      response.end(
        JSON.stringify(response.statusCode === 409 ? refusals.evicted : { ...record, stream }),
      )
    } else if (refusal) {
      response.statusCode = 409
      response.end(JSON.stringify(refusal))
    } else if (request.url?.startsWith('/token?video=demo')) response.end(JSON.stringify(record))
    else if (request.url?.startsWith('/token?video=broken')) response.end('{"token":1}')
    else if (request.url?.startsWith('/token?video=html')) {
      response.statusCode = 502
      response.end('<html>bad gateway</html>')
    } else if (request.url?.startsWith('/token?video=busy')) {
      response.statusCode = 429
      response.setHeader('retry-after', '7')
      response.end('{"error":"too many token requests: retry after 7 s"}')
    } else {
      response.statusCode = 400
      response.end('{"error":"query parameter \\"video\\" is required"}')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('fetchToken', () => {
  it('returns the record and remembers the server clock from the Date header', async () => {
    const got = await fetchToken(`${base}/token?video=demo`)
    expect(got).toEqual(record)
    expect(serverDateOf(got)).toBe(Date.parse(serverDate) + 500)
  })

  it('turns a non-2xx answer into a TokenFetchError carrying the status and the backend message', async () => {
    const error = await fetchToken(`${base}/token`).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TokenFetchError)
    expect(error).toMatchObject({
      status: 400,
      message: 'token backend answered 400: query parameter "video" is required',
    })
    await expect(fetchToken(`${base}/token?video=html`)).rejects.toThrow(
      'token backend answered 502',
    )
  })

  it('sends the stream of its context back as stream=<id>, and takes fetch options beside it', async () => {
    await fetchToken(`${base}/token?video=demo&type=vod`, {
      stream: 'abcdefghijklmnopqrstuv',
      headers: { authorization: 'Bearer x' },
    })
    expect(queries.at(-1)?.toString()).toBe('video=demo&type=vod&stream=abcdefghijklmnopqrstuv')
    await fetchToken(new URL(`${base}/token?video=demo`), {})
    expect(queries.at(-1)?.has('stream')).toBe(false)
  })

  it('turns a 409 stream_limit into a StreamLimitError with the limit and the streams start times', async () => {
    const error = await fetchToken(`${base}/token?video=full`).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StreamLimitError)
    expect(isStreamRefusal(error)).toBe(true)
    expect(error).toMatchObject({
      name: 'StreamLimitError',
      status: 409,
      code: 'stream_limit',
      limit: 2,
      reason: undefined,
      message: 'token backend answered 409: stream limit reached: 2 of 2 streams are playing',
      streams: [
        {
          startedAt: new Date('2026-11-26T10:00:00Z'),
          lastSeenAt: new Date('2026-11-26T10:01:10Z'),
        },
        { startedAt: new Date('2026-11-26T10:00:30Z') },
      ],
    })
  })

  it('turns a 409 stream_ended into a StreamLimitError with its reason; another 409 stays a TokenFetchError', async () => {
    const ended = await fetchToken(`${base}/token?video=evicted`).catch((e: unknown) => e)
    expect(ended).toMatchObject({ code: 'stream_ended', reason: 'evicted', limit: undefined })
    expect(ended).toBeInstanceOf(StreamLimitError)
    const other = await fetchToken(`${base}/token?video=conflict`).catch((e: unknown) => e)
    expect(other).toBeInstanceOf(TokenFetchError)
    expect(isStreamRefusal(other)).toBe(false)
  })

  it('rejects a 200 whose body is not a token record', async () => {
    await expect(fetchToken(`${base}/token?video=broken`)).rejects.toThrow(TypeError)
  })

  it('rejects a network failure', async () => {
    await expect(fetchToken('http://127.0.0.1:1/token?video=demo')).rejects.toThrow()
  })

  it('carries the Retry-After of a 429 as retryAfterMs (the refresher waits at least that)', async () => {
    const error = await fetchToken(`${base}/token?video=busy`).catch((e: unknown) => e)
    expect(error).toMatchObject({
      status: 429,
      retryAfterMs: 7000,
      message: 'token backend answered 429: too many token requests: retry after 7 s',
    })
  })
})

describe("fetchToken and the tab's stream (sessionStorage)", () => {
  const url = () => `${base}/token?video=adopting&type=vod`
  const proposal = (n: number) => `proposal-${n}`.padEnd(22, '0')
  const sent = () => queries.at(-1)?.get('stream')
  let storage: Storage
  beforeAll(() => {
    storage = new Storage()
    vi.stubGlobal('sessionStorage', storage)
  })
  afterEach(() => {
    storage.clear()
    endedStreams.clear()
  })
  afterAll(() => vi.unstubAllGlobals())

  it("sends the refresher's proposal for the first token, then this tab's stream of the URL (a reload, a retried first request)", async () => {
    const first = await fetchToken(url(), { stream: proposal(1), proposed: true })
    expect([sent(), first.stream]).toEqual([proposal(1), proposal(1)])
    // the reload proposes another id: the tab's stream is resumed instead
    const reloaded = await fetchToken(url(), { stream: proposal(2), proposed: true })
    expect([sent(), reloaded.stream]).toEqual([proposal(1), proposal(1)])
    // another URL (another video, another lifetime) is its own stream
    await fetchToken(`${url()}&expire=60`, { stream: proposal(3), proposed: true })
    expect(sent()).toBe(proposal(3))
    // a record's stream is sent as it is, and becomes the tab's
    await fetchToken(url(), { stream: proposal(4) })
    expect(sent()).toBe(proposal(4))
    await fetchToken(url(), { stream: proposal(5), proposed: true })
    expect(sent()).toBe(proposal(4))
  })

  it('keeps the id before the answer comes: a first request that fails is retried with the same id', async () => {
    const down = 'http://127.0.0.1:1/token?video=adopting'
    await expect(fetchToken(down, { stream: proposal(1), proposed: true })).rejects.toThrow()
    await expect(fetchToken(down, { stream: proposal(2), proposed: true })).rejects.toThrow()
    expect([...Object.values(storage)]).toEqual([proposal(1)])
  })

  it('forgets an ended stream: resumed, it is replaced by the proposal at once; named by a record, it is refused', async () => {
    await fetchToken(url(), { stream: proposal(1), proposed: true })
    endedStreams.add(proposal(1))
    // the tab is reloaded: its stream was evicted meanwhile
    const resumed = await fetchToken(url(), { stream: proposal(2), proposed: true })
    expect(resumed.stream).toBe(proposal(2))
    expect(queries.slice(-2).map((query) => query.get('stream'))).toEqual([
      proposal(1),
      proposal(2),
    ])
    // a playing refresher whose stream ends is told so (terminal), and the tab forgets it
    endedStreams.add(proposal(2))
    const refused = await fetchToken(url(), { stream: proposal(2) }).catch((e: unknown) => e)
    expect(refused).toMatchObject({ code: 'stream_ended' })
    await fetchToken(url(), { stream: proposal(3), proposed: true })
    expect(sent()).toBe(proposal(3))
  })

  it('works without storage: none, one that throws on access (privacy modes), or a full one', async () => {
    vi.stubGlobal('sessionStorage', undefined)
    expect((await fetchToken(url(), { stream: proposal(1), proposed: true })).stream).toBe(
      proposal(1),
    )
    Object.defineProperty(globalThis, 'sessionStorage', {
      configurable: true,
      get: () => {
        throw new DOMException('denied', 'SecurityError')
      },
    })
    expect((await fetchToken(url(), { stream: proposal(2), proposed: true })).stream).toBe(
      proposal(2),
    )
    const full = new Storage()
    full.setItem = () => {
      throw new DOMException('full', 'QuotaExceededError')
    }
    vi.stubGlobal('sessionStorage', full)
    expect((await fetchToken(url(), { stream: proposal(3), proposed: true })).stream).toBe(
      proposal(3),
    )
    vi.stubGlobal('sessionStorage', storage)
  })
})

describe('retryAfterMs', () => {
  it.each([
    [{ 'retry-after': '7' }, 7000],
    [{ 'retry-after': ' 0 ' }, 0],
    [{ 'retry-after': 'Sun, 22 Nov 2026 12:00:30 GMT', date: serverDate }, 30_000],
    [{ 'retry-after': 'Sun, 22 Nov 2026 11:00:00 GMT', date: serverDate }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{ 'retry-after': '-5' }, undefined],
    [{}, undefined],
  ])('%j → %s', (headers, ms) => {
    expect(retryAfterMs(new Headers(headers))).toBe(ms)
  })
})
