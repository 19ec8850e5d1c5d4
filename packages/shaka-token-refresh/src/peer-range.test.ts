// The peer range `shaka-player ^5.0.0` is true: the adapter runs on the lowest admitted Shaka
// (5.0.0, installed beside the current one as the npm alias `shaka-player-lowest`) and on the
// current one. Not 4.x: up to 4.16.50 Shaka's HTTP plugins make a 401/403 a CRITICAL error, which
// NetworkingEngine never retries (no `retry` event), so the 403 recovery cannot work there (this
// test fails on 4.16.0 at the 403); 5.0.0 made every bad status RECOVERABLE. Each release's real
// Player and NetworkingEngine with its HTTP plugin, against a small token-checking CDN: the
// request filter, the 403 recovery through the engine's `retry` event, the retry parameters, the
// give-up configuration and the clock sync's timeline API.
import {
  fakeTime,
  fakeTokenBackend,
  testRefreshOptions,
  tinyCdn,
} from '@proj/token-refresh/testing'
import type shakaType from 'shaka-player'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTokenRefresh } from './create-token-refresh.ts'

type Shaka = typeof shakaType

// a variable specifier: the alias has its own copy of Shaka's global type declarations, which
// must not meet the current release's in one compilation
const LOWEST: string = 'shaka-player-lowest'
const RELEASES = [
  { name: 'current', load: () => import('shaka-player'), version: /^v5\./ },
  { name: 'lowest admitted', load: () => import(LOWEST), version: /^v5\.0\.0/ },
]

let time: ReturnType<typeof fakeTime>
let cdn: Awaited<ReturnType<typeof tinyCdn>>

beforeEach(async () => {
  time = fakeTime()
  cdn = await tinyCdn(time.clock)
})
afterEach(() => cdn.close())

describe.each(RELEASES)('Shaka $name', ({ load, version }) => {
  it('keeps requests on fresh pairs, recovers a 403 and stops when the CDN refuses every token', async () => {
    const shaka = ((await load()) as { default: Shaka }).default
    shaka.polyfill.installAll()
    expect(shaka.Player.version).toMatch(version)
    expect(typeof shaka.media.PresentationTimeline.prototype.setClockOffset).toBe('function')

    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
    const refresh = await createTokenRefresh(
      testRefreshOptions(time, cdn.issuing(backend.getToken)),
    )
    const player = new shaka.Player()
    refresh.attach(player)
    const engine = player.getNetworkingEngine()
    if (!engine) throw new Error('no networking engine')
    expect(player.getConfiguration().streaming.retryParameters.maxAttempts).toBeGreaterThanOrEqual(
      3,
    )
    const SEGMENT = shaka.net.NetworkingEngine.RequestType.SEGMENT
    const send = async (url: string) => {
      const retry = { ...shaka.net.NetworkingEngine.defaultRetryParameters(), baseDelay: 5 }
      const request = shaka.net.NetworkingEngine.makeRequest([url], { ...retry, maxAttempts: 3 })
      try {
        return (await engine.request(SEGMENT, request).promise).status ?? 200
      } catch (error) {
        return Number((error as shakaType.util.Error).data?.[1] ?? -1)
      }
    }

    // the request filter: an old URL leaves on the pair of the refresh
    await time.advance(14_000)
    expect(await send(refresh.url.replace('tok0002plain', 'tok0001plain'))).toBe(200)
    // the retry event: a 403 refreshes, the retry leaves on the new pair
    cdn.failOnce('seg_000.ts', 403)
    expect(await send(new URL('v0/seg_000.ts', refresh.url).href)).toBe(200)
    expect(cdn.hits.map((hit) => `${hit.token} ${hit.path} ${hit.status}`)).toEqual([
      'tok0002plain master.m3u8 200',
      'tok0002plain v0/seg_000.ts 403',
      'tok0003plain v0/seg_000.ts 200',
    ])

    // every token refused: onError's TokenRejectedError, and Shaka configured to stop
    const errors: unknown[] = []
    refresh.refresher.addEventListener('error', (event) =>
      errors.push((event as CustomEvent).detail),
    )
    cdn.rejectAll()
    expect(await send(refresh.url)).toBe(403)
    expect(await send(new URL('v1/index.m3u8', refresh.url).href)).toBe(403)
    expect(errors.map(String)).toEqual([expect.stringContaining('TokenRejectedError')])
    expect(player.getConfiguration().manifest.raiseFatalErrorOnManifestUpdateRequestFailure).toBe(
      true,
    )

    await player.destroy()
    expect(time.pending).toBe(0)
  })
})
