import { TokenRefresher } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import Hls from 'hls.js'
import { describe, expect, it, vi } from 'vitest'
import { watchFailures } from './failure-watch.ts'

// The module after a failure arrives late (a slow network): its import waits here until the test
// opens the gate. What happened meanwhile is handed to it as it was.
const module = await vi.hoisted(async () =>
  (await import('@proj/token-refresh/testing')).heldImport(),
)
vi.mock('./after-failure.ts', async (importOriginal) => {
  await module.arrival()
  return importOriginal()
})

describe('the module after a failure, in late', () => {
  it('an outage over before it is in still revives playback that stands still', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock })
    const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    const hls = new Hls({ autoStartLoad: false })
    const startLoad = vi.spyOn(hls, 'startLoad').mockImplementation(() => undefined)
    vi.spyOn(hls, 'levels', 'get').mockReturnValue([{}] as never)
    const media = {
      currentTime: 12,
      paused: false,
      ended: false,
      readyState: 2,
      play: vi.fn(async () => undefined),
    }
    vi.spyOn(hls, 'media', 'get').mockReturnValue(media as never)
    const stop = watchFailures(Hls, hls, refresher, { checkAfterMs: 2000, timers: time.timers })
    backend.fail(1000)
    await time.advance(30_000) // refreshes fail while the token is expired: an outage
    expect(module.loads).toBe(1) // asked for with the first failure, not in yet
    backend.fail(0)
    await refresher.refresh() // the outage is over before the module is in
    expect(refresher.expired).toBe(false)
    module.open()
    await vi.dynamicImportSettled()
    await new Promise((resolve) => setTimeout(resolve, 0))
    // it heard that refreshes failed while the token was expired (not: is it expired now?)
    await time.advance(2000)
    expect(startLoad).toHaveBeenCalledWith(12) // playback stood still: loading restarts
    stop()
    hls.destroy()
    refresher.destroy()
  })
})
