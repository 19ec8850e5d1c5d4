// @vitest-environment happy-dom
import { type FakeTime, fakeTime } from '@proj/token-refresh/testing'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { FakeVideo } from '../../test/fake-video.ts'
import { type FakePage, fakeWorld, mediaRequest } from '../../test/harness.ts'
import { protectNativePlayback } from './protect-native.ts'
import type { TokenRefreshWorker } from './worker-connection.ts'

let time: FakeTime
let world: ReturnType<typeof fakeWorld>
let page: FakePage
let video: FakeVideo

beforeEach(() => {
  time = fakeTime()
  world = fakeWorld(time)
  page = world.page('tab-1')
  video = new FakeVideo()
  vi.spyOn(console, 'info').mockImplementation(() => undefined)
})

const element = () => video as unknown as HTMLMediaElement
const clocked = () => ({ clock: time.clock, timers: time.timers })
/** Lets the worker's answers (MessageChannel ports) arrive. */
const messages = () => new Promise((resolve) => setTimeout(resolve, 20))

/** The element plays and fetches a segment of its video through the worker, as Chromium does. */
const playThroughWorker = async (url: string, destination: RequestDestination = 'video') => {
  await video.play()
  video.loaded()
  const response = world.worker.handle(
    mediaRequest(new URL('v0/seg_000.ts', url).href, {}, destination),
    page.id,
  )
  expect((await response)?.status).toBe(200)
}

/** Auto mode with the worker, which moved one of the element's own requests (its first URL). */
const seenByWorker = async () => {
  const refresher = await page.open('12345_demo')
  const first = refresher.url
  const protection = await protectNativePlayback(element(), refresher, {
    ...clocked(),
    worker: page.connection,
  })
  await time.advance(0)
  await playThroughWorker(first)
  return { refresher, first, protection }
}

describe('protectNativePlayback, the session rung', () => {
  const SESSION = 'https://tokens.example.com/s/demo/eyJhbGciOiJIUzI1NiJ9.e30.sig/master.m3u8'

  it('no worker but a getSessionUrl: the element plays the session from the start, never swapped', async () => {
    const refresher = await page.open('12345_demo')
    const getSessionUrl = vi.fn(async () => SESSION)
    const protection = await protectNativePlayback(element(), refresher, {
      ...clocked(),
      getSessionUrl,
    })
    expect(video.src).toBe(SESSION)
    // the session's leaves redirect to the CDN: Chromium plays that only in CORS mode
    expect(video.crossOrigin).toBe('anonymous')
    expect(protection.mode).toBe('session')
    await video.play()
    video.loaded()
    await time.advance(60_000) // three token lifetimes
    expect(video.src).toBe(SESSION)
    expect(protection.swaps).toEqual([])
    expect(getSessionUrl).toHaveBeenCalledTimes(1)
  })

  it('a worker that does not see the element: one switch to the session when the first swap falls due, then none', async () => {
    const refresher = await page.open('12345_demo')
    const protection = await protectNativePlayback(element(), refresher, {
      ...clocked(),
      worker: page.connection,
      getSessionUrl: async () => SESSION,
    })
    await time.advance(0)
    await playThroughWorker(refresher.url, '') // not the element's own requests
    await time.advance(18_000) // the first deadline
    await messages()
    expect(video.src).toBe(SESSION)
    expect(video.crossOrigin).toBe('anonymous')
    video.loaded()
    expect(protection.mode).toBe('session')
    for (let i = 0; i < 6; i++) {
      await time.advance(10_000)
      await messages()
    }
    expect(refresher.refreshCount).toBeGreaterThanOrEqual(3)
    expect(video.src).toBe(SESSION)
    expect(protection.swaps).toMatchObject([{ reason: 'session' }])
  })

  it("keeps the page's own CORS mode (use-credentials) when it switches to the session", async () => {
    const refresher = await page.open('12345_demo')
    video.crossOrigin = 'use-credentials'
    await protectNativePlayback(element(), refresher, {
      ...clocked(),
      getSessionUrl: async () => SESSION,
    })
    expect(video.src).toBe(SESSION)
    expect(video.crossOrigin).toBe('use-credentials')
  })

  it('a session that fails (revoked, ended) is not revived with a token URL', async () => {
    const refresher = await page.open('12345_demo')
    await protectNativePlayback(element(), refresher, {
      ...clocked(),
      worker: Promise.reject(new Error('no service worker here')),
      getSessionUrl: async () => SESSION,
    })
    await video.play()
    video.loaded()
    await time.advance(18_000)
    expect(video.src).toBe(SESSION)
    video.loaded()
    video.error = { code: 2 }
    video.dispatchEvent(new Event('error'))
    await time.advance(30_000)
    expect(video.src).toBe(SESSION)
  })

  it('mode "session" without getSessionUrl is an error before the element is touched', async () => {
    const refresher = await page.open('12345_demo')
    await expect(protectNativePlayback(element(), refresher, { mode: 'session' })).rejects.toThrow(
      'mode "session" needs getSessionUrl',
    )
    expect(video.src).toBe('')
  })
})

describe('protectNativePlayback, auto', () => {
  it('gives the element its source at once: the first frame never waits for the worker', async () => {
    const refresher = await page.open('12345_demo')
    let connect: ((worker: TokenRefreshWorker) => void) | undefined
    const pending = new Promise<TokenRefreshWorker>((resolve) => {
      connect = resolve
    })
    const protection = await protectNativePlayback(element(), refresher, {
      ...clocked(),
      worker: pending,
    })
    expect(video.src).toBe(refresher.url)
    expect(protection.mode).toBe('swap') // nothing else protects it yet
    connect?.(page.connection)
    await time.advance(0)
    expect(protection.mode).toBe('service-worker')
  })

  it('the worker was seen moving the element’s media: no swap at any expiry, ever', async () => {
    const { refresher, first, protection } = await seenByWorker()
    for (let i = 0; i < 7; i++) {
      await time.advance(10_000) // 4 refreshes, each past its deadline
      await messages()
    }
    expect(refresher.refreshCount).toBeGreaterThanOrEqual(4)
    expect(video.src).toBe(first)
    expect(protection.swaps).toEqual([])
    expect(protection.mode).toBe('service-worker')
  })

  it('a worker the browser stopped during a long pause still knows it moved the element’s media: no swap when played again', async () => {
    // seen by this worker, not asked yet (no swap was due)
    const { refresher, first, protection } = await seenByWorker()
    await time.advance(5000)
    video.paused = true
    video.dispatchEvent(new Event('pause'))
    // an hour paused: the refresher goes on, and the idle worker is stopped and started again
    // between two of its records (each record wakes a new one)
    for (let i = 0; i < 360; i++) {
      world.restart()
      await time.advance(10_000)
    }
    await messages()
    expect(refresher.refreshCount).toBeGreaterThan(200)
    await video.play() // played again: the due swap asks the (restarted) worker first
    await messages()
    expect(video.src).toBe(first) // not swapped: the worker moves its requests
    video.loaded()
    expect(protection.swaps).toEqual([])
    expect(protection.mode).toBe('service-worker')
  })

  it('a swap falls due and the worker saw none of the element’s media: swaps take over', async () => {
    const refresher = await page.open('12345_demo')
    const protection = await protectNativePlayback(element(), refresher, {
      ...clocked(),
      worker: page.connection,
    })
    await time.advance(0)
    // only another player's fetches (destination '') went through the worker
    await playThroughWorker(refresher.url, '')
    await time.advance(14_000) // refreshed: not known yet, so the swap waits for its deadline
    expect(video.src).toContain('/tok0001plain/')
    expect(protection.mode).toBe('service-worker')
    await time.advance(4000) // 2 s before the first token expires
    await messages()
    expect(video.src).toContain('/tok0002plain/')
    video.loaded()
    expect(protection.mode).toBe('swap')
    expect(protection.swaps).toMatchObject([{ reason: 'refresh' }])
    expect(console.info).toHaveBeenCalledWith(expect.stringContaining('source swaps take over'))
  })

  it('without a worker (none given, or registration failed) the swap protects from the start', async () => {
    const refresher = await page.open('12345_demo')
    const failed = Promise.reject(new Error('registering failed'))
    const protection = await protectNativePlayback(element(), refresher, {
      ...clocked(),
      worker: failed,
    })
    await time.advance(0)
    expect(protection.mode).toBe('swap')
    await video.play()
    video.loaded()
    await time.advance(18_000)
    expect(video.src).toContain('/tok0002plain/')
  })

  it('destroy() releases the worker and stops swapping; the element keeps its source', async () => {
    const refresher = await page.open('12345_demo')
    const protection = await protectNativePlayback(element(), refresher, {
      ...clocked(),
      mode: 'swap',
    })
    const source = video.src
    protection.destroy()
    await video.play()
    video.loaded()
    await time.advance(30_000)
    expect(video.src).toBe(source)
  })
})

describe('protectNativePlayback, live through an outage longer than a token', () => {
  // Chromium's player, stalled ~25 s on a held live playlist, then handed the playlist of the
  // moved-on window, seeks into the gap and quits (HlsDemuxerStatus "Loaded ranges conflict
  // with media time", a MEDIA_ERR_SRC_NOT_SUPPORTED): the element must be reloaded at the live
  // edge before the worker lets its held requests go.
  it.each(['auto', 'service-worker'] as const)(
    '%s: a stalled live element is reloaded at the live edge before the worker sends what it held',
    async (mode) => {
      const refresher = await page.open('12345_demo')
      const first = refresher.url
      video.duration = Number.POSITIVE_INFINITY
      const protection = await protectNativePlayback(element(), refresher, {
        ...clocked(),
        mode,
        worker: page.connection,
      })
      await time.advance(0)
      await playThroughWorker(first) // the worker is seen moving the element's media
      const backend = page.backends.get('12345_demo')
      backend?.fail(1_000_000)
      await time.advance(30_000) // the token expired: the worker holds the playlist reload
      const held = world.worker.handle(mediaRequest(new URL('v0/index.m3u8', first).href), page.id)
      let sourceWhenSent = ''
      void held?.then(() => {
        sourceWhenSent = video.src
      })
      video.readyState = 2 // HAVE_CURRENT_DATA: stalled
      video.dispatchEvent(new Event('waiting'))
      await time.advance(10_000)
      await messages()
      expect(protection.swaps).toEqual([])
      let back = ''
      refresher.addEventListener('tokenrefreshed', () => {
        back ||= refresher.url
      })
      backend?.fail(0)
      await time.advance(35_000) // the next retry brings a token
      await messages()
      expect(back).not.toBe('')
      expect(video.src).toBe(back)
      expect(sourceWhenSent).toBe(back) // the reload came first
      video.loaded()
      expect(protection.swaps).toMatchObject([{ reason: 'rejected', live: true }])
      expect(protection.mode).toBe('service-worker')
    },
  )
})

describe('protectNativePlayback, service-worker', () => {
  /** A playing element protected by the worker alone. */
  const protectedByWorker = async () => {
    const refresher = await page.open('12345_demo')
    const protection = await protectNativePlayback(element(), refresher, {
      ...clocked(),
      mode: 'service-worker',
      worker: page.connection,
    })
    await video.play()
    video.loaded()
    return { refresher, protection }
  }

  it('throws without a worker, before touching the element', async () => {
    const refresher = await page.open('12345_demo')
    await expect(
      protectNativePlayback(element(), refresher, { mode: 'service-worker' }),
    ).rejects.toThrow(/no worker/)
    expect(video.src).toBe('')
  })

  it('an element stalled through an outage is left to the worker: no reload when the token is back', async () => {
    const { refresher, protection } = await protectedByWorker()
    page.backends.get('12345_demo')?.fail(1_000_000)
    await time.advance(30_000) // the token expired; the worker holds the element's requests
    video.dispatchEvent(new Event('waiting'))
    await time.advance(10_000)
    page.backends.get('12345_demo')?.fail(0)
    await time.advance(35_000) // the next retry (30 s apart while nothing asks for media)
    expect(refresher.expired).toBe(false)
    expect(protection.swaps).toEqual([])
    expect(video.src).toContain('/tok0001plain/')
  })

  it('a refused stream: the worker forgets the video, the element fails on its expired pair and is not revived', async () => {
    const { refresher, protection } = await protectedByWorker()
    await time.advance(28_000) // two refreshes: the element's own pair (the first) has expired
    const segment = new URL('v0/seg_001.ts', video.src).href
    page.backends.get('12345_demo')?.refuseStreams('stream_ended')
    await time.advance(14_000) // the refused refresh
    expect(refresher.rejected).toBe(true)
    await messages()
    // the worker no longer moves the element's requests: its first pair goes out, and is refused
    const response = await world.worker.handle(mediaRequest(segment, {}, 'video'), page.id)
    expect(response?.status).toBe(410)
    expect(world.cdn.sent.at(-1)?.url).toContain('/tok0001plain/')
    video.error = { code: 2 }
    video.dispatchEvent(new Event('error'))
    await time.advance(0)
    expect(protection.swaps).toEqual([])
    expect(video.src).toContain('/tok0001plain/')
  })

  it('never swaps on refresh, but revives an element that failed, at its position', async () => {
    const { refresher, protection } = await protectedByWorker()
    await time.advance(30_000)
    expect(protection.swaps).toEqual([])
    video.currentTime = 29
    video.error = { code: 4 }
    video.dispatchEvent(new Event('error'))
    // Chromium pauses a failed element after its error event: the viewer did not
    video.paused = true
    video.dispatchEvent(new Event('pause'))
    await time.advance(0)
    expect(video.src).toBe(refresher.url)
    video.error = null
    video.currentTime = 0
    video.loaded()
    expect(video.currentTime).toBe(29)
    expect(video.paused).toBe(false) // playing again, as before the failure
    expect(protection.swaps).toMatchObject([{ reason: 'rejected' }])
    expect(protection.mode).toBe('service-worker')
  })
})
