import { StreamLimitError } from '@proj/token-refresh/stream-limit'
import {
  fakeTime,
  fakeTokenBackend,
  testRefreshOptions,
  tinyCdn,
} from '@proj/token-refresh/testing'
import shaka from 'shaka-player'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTokenRefresh, type ShakaTokenRefresh } from './create-token-refresh.ts'

// Shaka's real NetworkingEngine, with its real HTTP plugin, against a small token-checking CDN.
// as every Shaka page does first (Map.prototype.getOrInsertComputed and friends)
shaka.polyfill.installAll()

let time: ReturnType<typeof fakeTime>
let backend: ReturnType<typeof fakeTokenBackend>
let cdn: Awaited<ReturnType<typeof tinyCdn>>
let refresh: ShakaTokenRefresh
let player: shaka.Player
let engine: shaka.net.NetworkingEngine

beforeEach(async () => {
  time = fakeTime()
  backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
  cdn = await tinyCdn(time.clock)
  refresh = await createTokenRefresh(testRefreshOptions(time, cdn.issuing(backend.getToken)))
  player = new shaka.Player()
  refresh.attach(player)
  const networking = player.getNetworkingEngine()
  if (!networking) throw new Error('no networking engine')
  engine = networking
})
afterEach(async () => {
  await player.destroy()
  await cdn.close()
})

const SEGMENT = shaka.net.NetworkingEngine.RequestType.SEGMENT
/** Sends `url` through the engine with fast retries; resolves with the status or the error code. */
const send = async (url: string, maxAttempts = 3) => {
  const request = shaka.net.NetworkingEngine.makeRequest([url], {
    ...shaka.net.NetworkingEngine.defaultRetryParameters(),
    baseDelay: 5,
    maxAttempts,
  })
  try {
    const response = await engine.request(SEGMENT, request).promise
    return { status: response.status ?? 200 }
  } catch (error) {
    const shakaError = error as shaka.util.Error
    return { status: Number(shakaError.data?.[1] ?? -1), code: shakaError.code }
  }
}
const tokens = () => cdn.hits.map((hit) => `${hit.token} ${hit.status}`)

describe('the request filter', () => {
  it('moves a URL resolved under an older token onto the current pair', async () => {
    const level = new URL('v1/index.m3u8', refresh.url).href
    await time.advance(28_000) // two refreshes
    expect((await send(level)).status).toBe(200)
    expect(tokens()).toEqual(['tok0003plain 200'])
  })

  it('runs again on every attempt: a retry after a refresh leaves with the new pair', async () => {
    cdn.failOnce('v0/seg_000.ts', 503)
    cdn.onHit(async (hit) => {
      if (hit.status === 503) await refresh.refresher.refresh()
    })
    expect((await send(new URL('v0/seg_000.ts', refresh.url).href)).status).toBe(200)
    expect(tokens()).toEqual(['tok0001plain 503', 'tok0002plain 200'])
  })

  it('waits for the refresh when a request would leave with a stale token (tab woke up)', async () => {
    time.jump(60_000)
    expect((await send(refresh.url)).status).toBe(200)
    expect(tokens()).toEqual(['tok0002plain 200'])
  })
})

describe('403/410 recovery', () => {
  it.each([403, 410])('a %i refreshes once and the retry succeeds', async (status) => {
    cdn.failOnce('seg_000.ts', status)
    expect((await send(new URL('v0/seg_000.ts', refresh.url).href)).status).toBe(200)
    expect(tokens()).toEqual([`tok0001plain ${status}`, 'tok0002plain 200'])
    expect(backend.calls).toBe(2)
  })

  it('key requests too', async () => {
    cdn.revoke('tok0001plain')
    expect((await send(new URL('v1/key.bin', refresh.url).href)).status).toBe(200)
    expect(tokens()).toEqual(['tok0001plain 410', 'tok0002plain 200'])
  })

  it('a CDN that refuses every token ends in the error, with a bounded number of requests', async () => {
    cdn.rejectAll()
    const result = await send(refresh.url, 10)
    expect(result.status).toBe(403)
    expect(cdn.hits.length).toBeLessThanOrEqual(3)
    expect(backend.calls).toBeLessThanOrEqual(3)
  })

  it('one resource refused with each of three fresh tokens: the last refusal counts too (TokenRejectedError)', async () => {
    const errors: unknown[] = []
    refresh.refresher.addEventListener('error', (event) =>
      errors.push((event as CustomEvent).detail),
    )
    cdn.rejectAll()
    await send(refresh.url, 3)
    expect(new Set(cdn.hits.map((hit) => hit.token)).size).toBe(3)
    expect(errors.map(String)).toEqual([expect.stringContaining('TokenRejectedError')])
    expect(refresh.refresher.rejected).toBe(true)
  })

  it('once the refresher gives up, Shaka stops: fatal playlist updates, refused segments not retried, no rendition switch', async () => {
    const pageCallback: shaka.util.Error[] = []
    player.configure({
      streaming: { failureCallback: (error: shaka.util.Error) => pageCallback.push(error) },
    })
    expect(player.getConfiguration().manifest.raiseFatalErrorOnManifestUpdateRequestFailure).toBe(
      false,
    )
    const { Severity, Category, Code } = shaka.util.Error
    const refused = (url: string) =>
      new shaka.util.Error(Severity.CRITICAL, Category.NETWORK, Code.BAD_HTTP_STATUS, url, 403)
    const segment = new URL('v0/seg_000.ts', refresh.url).href
    player.getConfiguration().streaming.failureCallback(refused(segment))
    expect(pageCallback).toHaveLength(1) // before: Shaka's live policy (the page's) decides

    const errors: unknown[] = []
    refresh.refresher.addEventListener('error', (event) =>
      errors.push((event as CustomEvent).detail),
    )
    cdn.rejectAll()
    // three fresh tokens refused in a row: two requests (each ends after two refreshes)
    await send(refresh.url, 10)
    await send(new URL('v0/index.m3u8', refresh.url).href, 10)
    expect(String(errors[0])).toContain('TokenRejectedError')
    const config = player.getConfiguration()
    expect(config.manifest.raiseFatalErrorOnManifestUpdateRequestFailure).toBe(true)
    // no other rendition tried: every rendition's requests are refused alike
    expect(config.streaming.maxDisabledTime).toBe(0)
    const error = refused(new URL('v0/seg_001.ts', refresh.url).href)
    config.streaming.failureCallback(error)
    expect(pageCallback).toHaveLength(1) // not retried: it stays fatal
    expect(error.severity).toBe(Severity.CRITICAL)
    // other errors still reach the page's callback
    config.streaming.failureCallback(refused('https://elsewhere.example/seg.ts'))
    expect(pageCallback).toHaveLength(2)
  })

  it('leaves other hosts alone', async () => {
    const elsewhere = refresh.url.replace('127.0.0.1', 'localhost')
    await time.advance(14_000)
    await send(elsewhere, 1)
    expect(cdn.hits[0]?.token).toBe('tok0001plain')
  })
})

describe('attach()', () => {
  it('makes room for recovery, keeps higher retry counts, and player.destroy() stops the refresh', async () => {
    const other = new shaka.Player()
    other.configure({ streaming: { retryParameters: { maxAttempts: 5 } } })
    const second = await createTokenRefresh(testRefreshOptions(time, cdn.issuing(backend.getToken)))
    refresh.destroy()
    second.attach(other)
    const config = other.getConfiguration()
    expect(config.manifest.retryParameters.maxAttempts).toBe(3)
    expect(config.streaming.retryParameters.maxAttempts).toBe(5)
    await time.advance(14_000)
    const request = shaka.net.NetworkingEngine.makeRequest(
      [second.url.replace('tok0003plain', 'tok0002plain')],
      shaka.net.NetworkingEngine.defaultRetryParameters(),
    )
    await other.getNetworkingEngine()?.request(SEGMENT, request).promise
    expect(tokens()).toEqual(['tok0003plain 200'])
    expect(time.pending).toBe(1)
    await other.destroy()
    expect(time.pending).toBe(0)
  })

  it('attach() after the refresh ended throws: the player would play on a token never renewed', async () => {
    await player.destroy()
    expect(refresh.refresher.destroyed).toBe(true)
    const other = new shaka.Player()
    expect(() => refresh.attach(other)).toThrow(/refresh has ended/)
    await other.destroy()
  })
})

describe.each(['stream_limit', 'stream_ended'] as const)(
  'the backend refuses the stream (%s)',
  (code) => {
    it("from the refused refresh on, each request of the video fails with Shaka's CRITICAL error", async () => {
      const streams = fakeTokenBackend({ clock: time.clock, lifetime: 20, streams: true })
      const limited = await createTokenRefresh(
        testRefreshOptions(time, cdn.issuing(streams.getToken)),
      )
      const other = new shaka.Player()
      limited.attach(other)
      const otherEngine = other.getNetworkingEngine()
      if (!otherEngine) throw new Error('no networking engine')
      engine = otherEngine
      const segment = new URL('v0/seg_000.ts', limited.url).href
      expect(await send(segment)).toEqual({ status: 200 })
      const errors: unknown[] = []
      limited.refresher.addEventListener('error', (event) => errors.push(event.detail))
      streams.refuseStreams(code)
      await time.advance(14_000)
      expect(errors).toEqual([expect.any(StreamLimitError)])
      const config = other.getConfiguration()
      expect(config.streaming.maxDisabledTime).toBe(0)
      expect(config.manifest.raiseFatalErrorOnManifestUpdateRequestFailure).toBe(true)
      const hits = cdn.hits.length
      const request = shaka.net.NetworkingEngine.makeRequest([segment], {
        ...shaka.net.NetworkingEngine.defaultRetryParameters(),
        baseDelay: 5,
      })
      const failure = await engine
        .request(SEGMENT, request)
        .promise.catch((error: unknown) => error as shaka.util.Error)
      expect(failure).toMatchObject({
        severity: shaka.util.Error.Severity.CRITICAL,
        code: shaka.util.Error.Code.REQUEST_FILTER_ERROR,
      })
      expect((failure as shaka.util.Error).data[0]).toBeInstanceOf(StreamLimitError)
      expect(cdn.hits.length).toBe(hits) // nothing reached the CDN
      // other hosts are not this video's
      await send(segment.replace('127.0.0.1', 'localhost'), 1)
      expect(cdn.hits.length).toBe(hits + 1)
      await time.advance(60_000)
      expect(streams.calls).toBe(2)
      await other.destroy()
    })
  },
)
