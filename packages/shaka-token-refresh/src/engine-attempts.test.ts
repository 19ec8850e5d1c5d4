import type { CdnChange } from '@proj/token-refresh'
import {
  fakeTime,
  type TwoCdns,
  testRefreshOptions,
  twoTinyCdns,
} from '@proj/token-refresh/testing'
import shaka from 'shaka-player'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTokenRefresh, type ShakaTokenRefresh } from './create-token-refresh.ts'

// Shaka's real NetworkingEngine and HTTP plugin against two tiny CDNs with different secrets:
// `a` preferred, `b` the fallback.
shaka.polyfill.installAll()

// long enough that a busy machine answers healthy requests in time
const TIMEOUT_MS = 1000
// Shaka's own retry delay, long enough to see that a CDN switch does not wait for it
const BASE_DELAY_MS = 4000

let time: ReturnType<typeof fakeTime>
let cdns: TwoCdns
let refresh: ShakaTokenRefresh
let player: shaka.Player
let engine: shaka.net.NetworkingEngine
let changes: CdnChange[]

beforeEach(async () => {
  time = fakeTime()
  cdns = await twoTinyCdns(time)
  refresh = await createTokenRefresh({
    ...testRefreshOptions(time, cdns.getToken),
    cdn: { timeoutMs: TIMEOUT_MS },
  })
  changes = []
  refresh.refresher.addEventListener('cdnchange', (event) => changes.push(event.detail))
  player = new shaka.Player()
  refresh.attach(player)
  const networking = player.getNetworkingEngine()
  if (!networking) throw new Error('no networking engine')
  engine = networking
})
afterEach(async () => {
  await player.destroy()
  await cdns.close()
})

const SEGMENT = shaka.net.NetworkingEngine.RequestType.SEGMENT
/** Sends `url` through the engine; resolves with the status or the error, and how long it took. */
const send = async (url: string, maxAttempts = 3) => {
  const request = shaka.net.NetworkingEngine.makeRequest([url], {
    ...shaka.net.NetworkingEngine.defaultRetryParameters(),
    baseDelay: BASE_DELAY_MS,
    maxAttempts,
  })
  const start = performance.now()
  try {
    const response = await engine.request(SEGMENT, request).promise
    return { status: response.status ?? 200, ms: performance.now() - start }
  } catch (error) {
    const shakaError = error as shaka.util.Error
    return { status: Number(shakaError.data?.[1] ?? -1), code: shakaError.code, ms: -1 }
  }
}
const segment = () => new URL('v0/seg_000.ts', refresh.url).href

describe('Shaka requests with two CDNs', () => {
  it('go to the preferred CDN with its own token', async () => {
    expect((await send(segment())).status).toBe(200)
    expect(cdns.hits()).toEqual(['a tok0001aplain 200'])
  })

  it('a fresh token refused (403) on a: re-sent at once on b with b’s token, no refresh', async () => {
    cdns.a.rejectAll()
    const { status, ms } = await send(segment())
    expect(status).toBe(200)
    expect(ms).toBeLessThan(BASE_DELAY_MS / 2) // not after Shaka's retry delay
    expect(cdns.hits()).toEqual(['a tok0001aplain 403', 'b tok0001bplain 200'])
    expect(cdns.backend.calls).toBe(1)
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'refused' }])
    // sticky: the next request goes straight to b
    await send(new URL('v1/seg_001.ts', refresh.url).href)
    expect(cdns.hits().slice(-1)).toEqual(['b tok0001bplain 200'])
  })

  it('a 503 on a: re-sent at once on b', async () => {
    cdns.a.failOnce('seg_000.ts', 503)
    const { status, ms } = await send(segment())
    expect(status).toBe(200)
    expect(ms).toBeLessThan(BASE_DELAY_MS / 2)
    expect(cdns.hits()).toEqual(['a tok0001aplain 503', 'b tok0001bplain 200'])
    expect(changes.map(({ reason }) => reason)).toEqual(['server-error'])
  })

  it('a hanging CDN: the attempt times out after cdnTimeoutMs and is re-sent on b', async () => {
    cdns.hang(cdns.a)
    const { status, ms } = await send(segment())
    expect(status).toBe(200)
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5)
    expect(ms).toBeLessThan(TIMEOUT_MS + BASE_DELAY_MS / 4)
    expect(cdns.a.hits.map((hit) => hit.token)).toEqual(['tok0001aplain'])
    expect(cdns.b.hits.map((hit) => `${hit.token} ${hit.status}`)).toEqual(['tok0001bplain 200'])
    expect(changes.map(({ reason }) => reason)).toEqual(['timeout'])
  })

  it('never sends a token to the other CDN, across refreshes and a switch', async () => {
    await time.advance(14_000) // a refresh: tok0002
    cdns.a.rejectAll()
    await send(segment())
    await send(new URL('v1/key.bin', refresh.url).href)
    for (const hit of cdns.a.hits) expect(hit.token).toMatch(/^tok\d+a(plain|bound)$/)
    for (const hit of cdns.b.hits) expect(hit.token).toMatch(/^tok\d+b(plain|bound)$/)
    expect(cdns.hits()).toEqual([
      'a tok0002aplain 403',
      'b tok0002bplain 200',
      'b tok0002bplain 200',
    ])
  })

  it('both CDNs failing: one switch, then Shaka’s own retries and error (no loop)', async () => {
    cdns.a.failOnce('seg_000.ts', 503)
    cdns.b.rejectAll()
    const result = await send(segment(), 1)
    expect(result.code).toBe(shaka.util.Error.Code.BAD_HTTP_STATUS)
    expect(result.status).toBe(403)
    expect(changes).toHaveLength(1)
    expect(cdns.hits()).toEqual(['a tok0001aplain 503', 'b tok0001bplain 403'])
  })

  it('an aborted request is not re-sent', async () => {
    cdns.hang(cdns.a)
    const request = shaka.net.NetworkingEngine.makeRequest(
      [segment()],
      shaka.net.NetworkingEngine.defaultRetryParameters(),
    )
    const operation = engine.request(SEGMENT, request)
    const outcome = operation.promise.then(
      () => 'resolved',
      (error: shaka.util.Error) => error.code,
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    await operation.abort()
    expect(await outcome).toBe(shaka.util.Error.Code.OPERATION_ABORTED)
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS + 100))
    expect(cdns.b.hits).toHaveLength(0)
  })

  it('sets the attempts’ connectionTimeout from cdnTimeoutMs, keeping a shorter one', async () => {
    const seen: number[] = []
    engine.registerRequestFilter((_type, request) => {
      seen.push(request.retryParameters.connectionTimeout)
    })
    await send(segment())
    const request = shaka.net.NetworkingEngine.makeRequest([segment()], {
      ...shaka.net.NetworkingEngine.defaultRetryParameters(),
      connectionTimeout: 900,
    })
    await engine.request(SEGMENT, request).promise
    expect(seen).toEqual([TIMEOUT_MS, 900])
  })

  it('leaves the connectionTimeout of requests that are not the video’s (a DRM licence)', async () => {
    const seen: number[] = []
    engine.registerRequestFilter((_type, request) => {
      seen.push(request.retryParameters.connectionTimeout)
      // answered without the network: only the filters' verdict matters here
      request.uris = ['data:text/plain,licence']
    })
    const licence = shaka.net.NetworkingEngine.makeRequest(
      ['https://licence.example.test/widevine'],
      { ...shaka.net.NetworkingEngine.defaultRetryParameters(), connectionTimeout: 10_000 },
    )
    await engine.request(shaka.net.NetworkingEngine.RequestType.LICENSE, licence).promise
    expect(seen).toEqual([10_000])
  })

  it('leaves a request already moved to every other CDN to Shaka’s own retries', async () => {
    cdns.a.failOnce('seg_000.ts', 503)
    let failedOnB = false
    cdns.b.onHit((hit) => {
      if (failedOnB) return
      failedOnB = true
      // a's cooldown is over by the time b fails (no timer fires: no probe)
      time.jump(21_000)
      hit.status = 503
    })
    const request = shaka.net.NetworkingEngine.makeRequest([segment()], {
      ...shaka.net.NetworkingEngine.defaultRetryParameters(),
      baseDelay: 50,
      maxAttempts: 3,
    })
    const outcome = await engine.request(SEGMENT, request).promise.then(
      (response) => response.status ?? 200,
      (error: shaka.util.Error) => error.code,
    )
    expect(outcome).toBe(200)
    // one switch: b's failure of the re-sent request blames no CDN, Shaka retries it on b
    expect(changes.map(({ to }) => to)).toEqual(['b'])
    // (the jump made the token stale: the retry carries b's next one)
    expect(cdns.hits()).toEqual([
      'a tok0001aplain 503',
      'b tok0001bplain 503',
      expect.stringMatching(/^b tok\d+bplain 200$/),
    ])
  })
})
