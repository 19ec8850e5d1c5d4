import { TokenRefresher } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import Hls from 'hls.js'
import { describe, expect, it, vi } from 'vitest'
import { reviveAfterOutage } from './revive.ts'

const fatal = (hls: Hls, fatal = true) =>
  hls.trigger(Hls.Events.ERROR, {
    type: Hls.ErrorTypes.NETWORK_ERROR,
    details: Hls.ErrorDetails.LEVEL_LOAD_ERROR,
    fatal,
    error: new Error('410'),
  })

describe('reviveAfterOutage (hls.js)', () => {
  it('restarts loading with the next token after a fatal network error, once', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock })
    const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    const hls = new Hls({ autoStartLoad: false })
    const loadSource = vi.spyOn(hls, 'loadSource').mockImplementation(() => undefined)
    const startLoad = vi.spyOn(hls, 'startLoad').mockImplementation(() => undefined)
    const stop = reviveAfterOutage(hls, refresher)
    fatal(hls, false) // not fatal: hls.js is still trying
    await refresher.refresh()
    expect(loadSource).not.toHaveBeenCalled()
    fatal(hls)
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
    hls.destroy()
    refresher.destroy()
  })
})
