// @vitest-environment happy-dom
import { TokenRefresher } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SourceSwap } from './source-swap.ts'

/** The parts of a media element the swap uses, with playback simulated by hand. */
class FakeVideo extends EventTarget {
  src = ''
  currentTime = 0
  paused = true
  readyState = 0
  duration = 80
  playbackRate = 1
  defaultPlaybackRate = 1
  autoplay = false
  ended = false
  error: { code: number } | null = null
  textTracks = Object.assign(new EventTarget(), { [Symbol.iterator]: [][Symbol.iterator] })
  get currentSrc() {
    return this.src
  }
  play() {
    this.paused = false
    this.dispatchEvent(new Event('play'))
    return Promise.resolve()
  }
  /** The element loaded the new source up to playing. */
  loaded() {
    this.readyState = 4
    this.dispatchEvent(new Event('loadedmetadata'))
    if (!this.paused) this.dispatchEvent(new Event('playing'))
  }
}

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

  it('swaps a paused element at once and keeps it paused at its position', async () => {
    video.readyState = 4
    video.currentTime = 31.5
    await advance(14_000)
    expect(video.src).toContain('/tok0002plain/')
    expect(video.paused).toBe(true)
    video.currentTime = 0 // the new source starts over…
    video.loaded()
    expect(video.currentTime).toBe(31.5) // …and is put back
    expect(swap.swaps).toEqual([{ reason: 'refresh', live: false, gapMs: 0, driftSeconds: 0 }])
  })

  it('while playing, waits for a stall or the last moment before the old token expires', async () => {
    await playing(10)
    await advance(14_000) // refreshed; the old token lives 6 s more
    expect(video.src).toContain('/tok0001plain/')
    await advance(3000)
    expect(video.src).toContain('/tok0001plain/')
    video.currentTime = 20
    video.dispatchEvent(new Event('waiting')) // stalled anyway: swap now
    expect(video.src).toContain('/tok0002plain/')
    monotonic += 180
    video.currentTime = 20.04
    video.loaded()
    expect(swap.swaps).toEqual([
      { reason: 'refresh', live: false, gapMs: 180, driftSeconds: expect.closeTo(0.04, 5) },
    ])
  })

  it('swaps by the margin before expiry when nothing stalls', async () => {
    await playing(10)
    await advance(14_000)
    await advance(4000) // 20 s lifetime − 2 s margin
    expect(video.src).toContain('/tok0002plain/')
  })

  it('live streams go back to the live edge: no position restored', async () => {
    video.duration = Number.POSITIVE_INFINITY
    video.readyState = 4
    video.currentTime = 500
    await advance(14_000)
    video.currentTime = 0
    video.loaded()
    expect(video.currentTime).toBe(0)
    expect(swap.swaps[0]).toMatchObject({ live: true, driftSeconds: undefined })
  })

  it('restores the rate, and resumes a viewer who was playing', async () => {
    await playing(12)
    video.playbackRate = 1.5
    video.dispatchEvent(new Event('pause'))
    video.paused = true
    await advance(14_000)
    expect(video.src).toContain('/tok0002plain/')
    expect(video.playbackRate).toBe(1.5)
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
