// @vitest-environment happy-dom
import { TokenRefresher } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FakeVideo } from '../../test/fake-video.ts'
import { SourceSwap } from './source-swap.ts'

let time: ReturnType<typeof fakeTime>
let refresher: TokenRefresher
let video: FakeVideo
let swap: SourceSwap
let monotonic = 0

beforeEach(async () => {
  time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
  refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
  video = new FakeVideo()
  swap = new SourceSwap(video as unknown as HTMLMediaElement, refresher, {
    now: () => monotonic,
    clock: time.clock,
    timers: time.timers,
  })
  swap.start()
})

afterEach(() => {
  swap.destroy()
  refresher.destroy()
})

const advance = (ms: number) => time.advance(ms)

const playing = async (at: number) => {
  await video.play()
  video.currentTime = at
  video.loaded()
}

describe('SourceSwap', () => {
  it('points the element at the current URL', () => {
    expect(video.src).toBe(refresher.url)
    expect(video.src).toContain('/tok0001plain/')
  })

  it('leaves a paused element alone until it is played, then swaps at once at its position', async () => {
    video.readyState = 4
    video.currentTime = 31.5
    await advance(50_000) // paused through two token lifetimes: nothing to fetch, no swap
    expect(video.src).toContain('/tok0001plain/')
    expect(swap.swaps).toEqual([])
    monotonic = 1000
    await video.play()
    await advance(0)
    expect(video.src).toContain(`/${refresher.record.token}/`)
    video.currentTime = 0 // the new source starts over…
    monotonic += 240
    video.loaded()
    expect(video.currentTime).toBe(31.5) // …and is put back
    expect(swap.swaps).toEqual([{ reason: 'refresh', live: false, gapMs: 240, driftSeconds: 0 }])
  })

  it('while playing, waits for a stall or the last moment before the old token expires', async () => {
    await playing(10)
    await advance(14_000) // refreshed; the old token lives 6 s more
    expect(video.src).toContain('/tok0001plain/')
    await advance(3000)
    expect(video.src).toContain('/tok0001plain/')
    video.currentTime = 20
    video.dispatchEvent(new Event('waiting')) // stalled anyway: swap now
    await advance(0)
    expect(video.src).toContain('/tok0002plain/')
    monotonic += 180
    video.currentTime = 20.04
    video.loaded()
    expect(swap.swaps).toEqual([
      { reason: 'refresh', live: false, gapMs: 180, driftSeconds: expect.closeTo(0.04, 5) },
    ])
  })

  it('a swap the element fails on takes no later playback as its own', async () => {
    await playing(10)
    await advance(18_000) // the deadline: switched to token 2, not playing yet
    expect(swap.swaps).toEqual([])
    const onSwap = vi.fn()
    swap.addEventListener('swap', onSwap)
    video.error = { code: 2 }
    video.dispatchEvent(new Event('error')) // the new URL fails: that swap never plays
    await advance(0) // recovered: a swap of its own
    expect(video.src).toContain('/tok0003plain/')
    monotonic += 300
    video.error = null
    video.loaded()
    expect(swap.swaps).toEqual([{ reason: 'rejected', live: false, gapMs: 300, driftSeconds: 0 }])
    expect(onSwap).toHaveBeenCalledTimes(1) // the failed swap's listeners take no later playback
  })

  it("destroyed mid-swap: the page's next source is neither seeked to the old position nor measured", async () => {
    await playing(10)
    await advance(18_000) // the deadline: switched to token 2, not loaded yet
    expect(video.src).toContain('/tok0002plain/')
    const onSwap = vi.fn()
    swap.addEventListener('swap', onSwap)
    swap.destroy()
    video.src = 'https://cdn.example/another-video/master.m3u8' // the page's own next video
    video.currentTime = 0
    video.loaded()
    expect(video.currentTime).toBe(0)
    expect(onSwap).not.toHaveBeenCalled()
    expect(swap.swaps).toEqual([])
  })

  it('swaps by the margin before expiry when nothing stalls', async () => {
    await playing(10)
    await advance(14_000)
    await advance(4000) // 20 s lifetime − 2 s margin
    expect(video.src).toContain('/tok0002plain/')
  })

  it('live streams go back to the live edge: no position restored', async () => {
    video.duration = Number.POSITIVE_INFINITY
    await playing(500)
    await advance(18_000)
    video.currentTime = 0
    video.loaded()
    expect(video.currentTime).toBe(0)
    expect(swap.swaps[0]).toMatchObject({ live: true, driftSeconds: undefined })
  })

  it('restores the rate, and resumes a viewer who was playing', async () => {
    await playing(12)
    video.playbackRate = 1.5
    video.paused = true
    video.dispatchEvent(new Event('pause'))
    await advance(14_000)
    expect(video.src).toContain('/tok0001plain/')
    await video.play()
    await advance(0)
    expect(video.src).toContain('/tok0002plain/')
    expect(video.playbackRate).toBe(1.5)
    expect(video.paused).toBe(false)
  })

  it('a stall of a paused element is no reason to swap or recover', async () => {
    video.readyState = 4
    await advance(25_000) // refreshed, and the first token expired
    video.dispatchEvent(new Event('stalled'))
    await advance(0)
    expect(swap.swaps).toEqual([])
    expect(video.src).toContain('/tok0001plain/')
  })

  /** Replaces the swap under test with one that asks `handledElsewhere`. */
  const swapAsking = (handledElsewhere: () => boolean | undefined) => {
    swap.destroy()
    swap = new SourceSwap(video as unknown as HTMLMediaElement, refresher, {
      now: () => monotonic,
      clock: time.clock,
      timers: time.timers,
      handledElsewhere,
    })
    swap.start(false)
  }

  it('skips every swap that is handled elsewhere (a service worker seen moving the media)', async () => {
    let elsewhere: boolean | undefined
    swapAsking(() => elsewhere)
    await playing(3)
    await advance(14_000) // refreshed
    video.dispatchEvent(new Event('waiting')) // not known yet: deferred to the deadline
    await advance(0)
    expect(video.src).toContain('/tok0001plain/')
    elsewhere = true
    await advance(4000) // the deadline: handled elsewhere, so no swap
    expect(video.src).toContain('/tok0001plain/')
    expect(swap.swaps).toEqual([])
    await advance(60_000) // and none after later refreshes either
    expect(swap.swaps).toEqual([])
  })

  it('a not-yet-known answer at the deadline counts as no: the swap happens', async () => {
    swapAsking(() => undefined)
    await playing(3)
    await advance(18_000)
    expect(video.src).toContain('/tok0002plain/')
  })

  it('an element that failed through a backend outage is revived once a token is back', async () => {
    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
    swap.destroy()
    refresher.destroy()
    refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    swap = new SourceSwap(video as unknown as HTMLMediaElement, refresher, {
      now: () => monotonic,
      clock: time.clock,
      timers: time.timers,
    })
    swap.start()
    await playing(3)
    backend.fail(1_000_000)
    await advance(25_000) // the token expired; the element fails on a 410
    video.error = { code: 4 }
    video.dispatchEvent(new Event('error'))
    await advance(40_000) // the outage goes on: nothing to swap to
    expect(swap.swaps).toEqual([])
    expect(video.src).toContain('/tok0001plain/')
    backend.fail(0)
    await advance(4000)
    expect(video.src).toContain(`/${refresher.record.token}/`)
    expect(refresher.expired).toBe(false)
    video.error = null
    video.loaded()
    expect(swap.swaps).toMatchObject([{ reason: 'rejected' }])
  })

  it('an element that failed on its token is recovered: one refresh, a swap, playing again', async () => {
    await playing(5)
    const onError = vi.fn()
    swap.addEventListener('error', onError)
    video.error = { code: 2 }
    video.dispatchEvent(new Event('error'))
    await advance(0)
    expect(refresher.refreshCount).toBe(1)
    expect(video.src).toContain('/tok0002plain/')
    expect(video.paused).toBe(false)
    // every new token fails too: bounded retries, then the page is told
    for (let i = 0; i < 4; i++) {
      video.dispatchEvent(new Event('error'))
      await advance(0)
    }
    expect(refresher.refreshCount).toBe(2)
    expect(onError).toHaveBeenCalled()
  })
})
