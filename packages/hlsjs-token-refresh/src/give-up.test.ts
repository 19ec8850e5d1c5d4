import { TokenRejectedError } from '@proj/token-refresh'
import { StreamLimitError } from '@proj/token-refresh/stream-limit'
import Hls, { type ErrorData } from 'hls.js'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useTokenCdn } from '../test/token-cdn.ts'
import { createTokenRefresh, type HlsTokenRefresh } from './create-token-refresh.ts'

const env = useTokenCdn()
let refresh: HlsTokenRefresh
let hls: Hls

/** Retries after 10 ms instead of hls.js's 1 s and more: the test runs in real time. */
const quick = <P extends 'manifestLoadPolicy' | 'playlistLoadPolicy'>(policy: P) => ({
  [policy]: {
    default: {
      ...Hls.DefaultConfig[policy].default,
      errorRetry: { maxNumRetry: 4, retryDelayMs: 10, maxRetryDelayMs: 10 },
    },
  },
})

beforeEach(async () => {
  refresh = await createTokenRefresh({
    ...env.options(),
    Hls,
    hlsConfig: { ...quick('manifestLoadPolicy'), ...quick('playlistLoadPolicy') },
  })
  hls = new Hls({ ...refresh.hlsConfig, autoStartLoad: false })
  refresh.attach(hls)
})
afterEach(() => hls.destroy())

/** hls.js's fatal errors, and a promise of the first. */
const watchFatal = () => {
  const fatal: ErrorData[] = []
  const first = new Promise<ErrorData>((resolve) =>
    hls.on(Hls.Events.ERROR, (_, data) => {
      if (!data.fatal) return
      fatal.push(data)
      resolve(data)
    }),
  )
  return { fatal, first }
}
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a CDN that refuses every token (attach)', () => {
  it("ends in hls.js's own fatal error with the TokenRejectedError, and loading stops", async () => {
    const parsed = new Promise((resolve) => hls.once(Hls.Events.MANIFEST_PARSED, resolve))
    hls.loadSource(refresh.url)
    await parsed
    const stopLoad = vi.spyOn(hls, 'stopLoad')
    const { fatal, first } = watchFatal()
    // the CDN's secret changes under a playing page: the level playlist is refused, and so is
    // every token fetched to recover it
    env.cdn.rejectAll()
    hls.startLoad()
    const error = await first
    expect(refresh.refresher.rejected).toBe(true)
    expect(error.error).toBeInstanceOf(TokenRejectedError)
    expect(error.type).toBe(Hls.ErrorTypes.NETWORK_ERROR)
    // the details and status of the refused request, as hls.js would report them
    expect(error.details).toBe(Hls.ErrorDetails.LEVEL_LOAD_ERROR)
    expect(error.response?.code).toBe(403)
    expect(stopLoad).toHaveBeenCalled()
    // hls.js had already switched to the other rendition when the refresher gave up: its
    // playlist request may be on its way, and is the last
    const atFatal = env.cdn.hits.length
    await settle(100)
    const after = env.cdn.hits.length
    expect(after - atFatal).toBeLessThanOrEqual(1)
    await settle(300) // 30 of the retry delays hls.js was given
    expect(env.cdn.hits.length).toBe(after)
    expect(fatal).toHaveLength(1)
    // three tokens, each refused once
    expect(env.cdn.hits.slice(1, 4).map((hit) => `${hit.token} ${hit.status}`)).toEqual([
      'tok0001plain 403',
      'tok0002plain 403',
      'tok0003plain 403',
    ])
  })

  it('a refusal hls.js already made fatal (the manifest) is not reported twice', async () => {
    const { fatal, first } = watchFatal()
    env.cdn.rejectAll()
    hls.loadSource(refresh.url)
    const error = await first
    await settle(100)
    expect(refresh.refresher.rejected).toBe(true)
    expect(error.details).toBe(Hls.ErrorDetails.MANIFEST_LOAD_ERROR)
    expect(fatal).toHaveLength(1)
  })

  it('hls.destroy() stops watching', async () => {
    hls.destroy()
    const trigger = vi.spyOn(hls, 'trigger')
    refresh.refresher.dispatchEvent(new CustomEvent('error', { detail: new TokenRejectedError(3) }))
    await settle(0)
    expect(trigger).not.toHaveBeenCalled()
  })
})

describe.each(['stream_limit', 'stream_ended'] as const)(
  'the backend refuses the stream (%s)',
  (code) => {
    it("ends in hls.js's fatal error at the refused refresh, with the StreamLimitError; loading stops", async () => {
      const parsed = new Promise((resolve) => hls.once(Hls.Events.MANIFEST_PARSED, resolve))
      hls.loadSource(refresh.url)
      await parsed
      const stopLoad = vi.spyOn(hls, 'stopLoad')
      const { fatal, first } = watchFatal()
      env.backend.refuseStreams(code)
      await env.time.advance(14_000) // the planned refresh: refused
      const error = await first
      expect(error.error).toBeInstanceOf(StreamLimitError)
      expect(error.error).toMatchObject({ code })
      expect(error.type).toBe(Hls.ErrorTypes.NETWORK_ERROR)
      expect(error.details).toBe(Hls.ErrorDetails.FRAG_LOAD_ERROR)
      expect(error.response).toBeUndefined()
      expect(stopLoad).toHaveBeenCalled()
      expect(refresh.refresher.rejected).toBe(true)
      // no refresh after the refusal, and no second fatal error
      await env.time.advance(60_000)
      await settle(50)
      expect(env.backend.calls).toBe(2)
      expect(fatal).toHaveLength(1)
    })
  },
)
