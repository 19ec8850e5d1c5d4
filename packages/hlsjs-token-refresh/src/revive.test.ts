import { TokenRefresher } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import Hls from 'hls.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { watchFailures } from './failure-watch.ts'

const fatal = (hls: Hls, fatal = true) =>
  hls.trigger(Hls.Events.ERROR, {
    type: Hls.ErrorTypes.NETWORK_ERROR,
    details: Hls.ErrorDetails.LEVEL_LOAD_ERROR,
    fatal,
    error: new Error('410'),
  })

/** A refresher on a fake clock and backend, and an hls.js that loads nothing by itself. */
const setup = async () => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock })
  const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
  const hls = new Hls({ autoStartLoad: false })
  cleanups.push(() => {
    hls.destroy()
    refresher.destroy()
  })
  return { time, backend, refresher, hls }
}
/**
 * The revival is loaded on demand with the first failure (failure-watch.ts): waits for that
 * import and the events it was handed.
 */
const loaded = async () => {
  await vi.dynamicImportSettled()
  await new Promise((resolve) => setTimeout(resolve, 0))
}
const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

describe('the outage revival (hls.js), loaded with the first failure', () => {
  it('restarts loading with the next token after a fatal network error, once per token', async () => {
    const { time, backend, refresher, hls } = await setup()
    const loadSource = vi.spyOn(hls, 'loadSource').mockImplementation(() => undefined)
    const startLoad = vi.spyOn(hls, 'startLoad').mockImplementation(() => undefined)
    const stop = watchFailures(Hls, hls, refresher)
    backend.fail(1000) // an outage: the token expires
    await time.advance(25_000)
    expect(refresher.expired).toBe(true)
    fatal(hls, false) // not fatal: hls.js is still trying
    fatal(hls)
    await loaded()
    expect(loadSource).not.toHaveBeenCalled() // the token is expired: wait for a new one
    backend.fail(0) // the backend is back
    await refresher.refresh()
    // no level loaded yet: the manifest again, with the new pair
    expect(loadSource).toHaveBeenCalledWith(refresher.url)
    await refresher.refresh()
    expect(loadSource).toHaveBeenCalledTimes(1)
    expect(startLoad).not.toHaveBeenCalled()
    stop()
    fatal(hls)
    await refresher.refresh()
    expect(loadSource).toHaveBeenCalledTimes(1)
  })

  it('hls.js gives up just after the token came back: revived at once, not a token lifetime later', async () => {
    const { refresher, hls } = await setup()
    const loadSource = vi.spyOn(hls, 'loadSource').mockImplementation(() => undefined)
    const stop = watchFailures(Hls, hls, refresher)
    await refresher.refresh() // the backend is back: a valid token…
    fatal(hls) // …and then hls.js's last retry, with the old pair, fails for good
    await loaded() // the first failure: the revival's module comes in, and revives at once
    expect(loadSource).toHaveBeenCalledWith(refresher.url)
    // the same token again (the CDN itself is down): not a loop, the next token retries
    fatal(hls)
    expect(loadSource).toHaveBeenCalledTimes(1)
    await refresher.refresh()
    expect(loadSource).toHaveBeenCalledTimes(2)
    stop()
  })

  it('never restarts loading once the CDN refused every token (TokenRejectedError)', async () => {
    const { refresher, hls } = await setup()
    const loadSource = vi.spyOn(hls, 'loadSource').mockImplementation(() => undefined)
    const startLoad = vi.spyOn(hls, 'startLoad').mockImplementation(() => undefined)
    const stop = watchFailures(Hls, hls, refresher)
    // three valid tokens refused in a row, each triggering a refresh: the refresher gives up
    for (let refused = 0; refused < 3; refused++) {
      refresher.recover(refresher.url)
      await refresher.refresh()
    }
    expect(refresher.rejected).toBe(true)
    await loaded()
    fatal(hls) // the give-up's fatal error, with a valid token
    await refresher.refresh() // and a later token
    expect(loadSource).not.toHaveBeenCalled()
    expect(startLoad).not.toHaveBeenCalled()
    stop()
  })

  it('an outage that left hls.js standing still without an error: restarted at the live edge once the token is back', async () => {
    const { time, backend, refresher, hls } = await setup()
    const startLoad = vi.spyOn(hls, 'startLoad').mockImplementation(() => undefined)
    vi.spyOn(hls, 'levels', 'get').mockReturnValue([{}] as never)
    vi.spyOn(hls, 'liveSyncPosition', 'get').mockReturnValue(76)
    const media = {
      currentTime: 29.95,
      paused: false,
      ended: false,
      readyState: 2,
      play: vi.fn(async () => undefined),
    }
    vi.spyOn(hls, 'media', 'get').mockReturnValue(media as never)
    const once = vi.spyOn(hls, 'once')
    const stop = watchFailures(Hls, hls, refresher, { checkAfterMs: 2000, timers: time.timers })
    backend.fail(1000)
    await time.advance(30_000) // refreshes fail while the token is expired: an outage
    backend.fail(0)
    await loaded()
    await refresher.refresh()
    expect(startLoad).not.toHaveBeenCalled() // given a moment to move on by itself…
    await time.advance(2000)
    expect(startLoad).toHaveBeenCalledWith(-1) // …it did not: loading restarts at the live edge
    // the fresh playlist: its window starts at 68 s, the element is at 29.95 s
    const [event, onUpdated] = once.mock.calls.at(-1) ?? []
    expect(event).toBe(Hls.Events.LEVEL_UPDATED)
    ;(onUpdated as (event: unknown, data: { details: { fragmentStart: number } }) => void)(event, {
      details: { fragmentStart: 68 },
    })
    expect(media.currentTime).toBe(76)
    stop()
  })

  it('playback that moves again by itself after the outage is left alone', async () => {
    const { time, backend, refresher, hls } = await setup()
    const startLoad = vi.spyOn(hls, 'startLoad').mockImplementation(() => undefined)
    const media = { currentTime: 10, paused: false, ended: false, readyState: 4 }
    vi.spyOn(hls, 'media', 'get').mockReturnValue(media as never)
    const stop = watchFailures(Hls, hls, refresher, { timers: time.timers })
    backend.fail(1000)
    await time.advance(30_000)
    backend.fail(0)
    await loaded()
    await refresher.refresh()
    media.currentTime = 11
    await time.advance(2000)
    expect(startLoad).not.toHaveBeenCalled()
    stop()
  })
})
