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
  it('restarts loading with the next token after a fatal network error, once per token', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock })
    const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    const hls = new Hls({ autoStartLoad: false })
    const loadSource = vi.spyOn(hls, 'loadSource').mockImplementation(() => undefined)
    const startLoad = vi.spyOn(hls, 'startLoad').mockImplementation(() => undefined)
    const stop = reviveAfterOutage(hls, refresher)
    backend.fail(1000) // an outage: the token expires
    await time.advance(25_000)
    expect(refresher.expired).toBe(true)
    fatal(hls, false) // not fatal: hls.js is still trying
    fatal(hls)
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
    hls.destroy()
    refresher.destroy()
  })

  it('hls.js gives up just after the token came back: revived at once, not a token lifetime later', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock })
    const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    const hls = new Hls({ autoStartLoad: false })
    const loadSource = vi.spyOn(hls, 'loadSource').mockImplementation(() => undefined)
    const stop = reviveAfterOutage(hls, refresher)
    await refresher.refresh() // the backend is back: a valid token…
    fatal(hls) // …and then hls.js's last retry, with the old pair, fails for good
    expect(loadSource).toHaveBeenCalledWith(refresher.url)
    // the same token again (the CDN itself is down): not a loop, the next token retries
    fatal(hls)
    expect(loadSource).toHaveBeenCalledTimes(1)
    await refresher.refresh()
    expect(loadSource).toHaveBeenCalledTimes(2)
    stop()
    hls.destroy()
    refresher.destroy()
  })
})
