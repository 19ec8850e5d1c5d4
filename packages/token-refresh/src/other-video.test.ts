// The decision every adapter's seam hands its player's "now loading <url>" to: another video's URL
// ends the refresh once; a URL of the same video (any pair, any of its CDNs, the IP-bound host) or
// no URL at all ends nothing.
import { describe, expect, it, vi } from 'vitest'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from './testing/index.ts'
import { TokenRefresher } from './token-refresher.ts'
import { endOnOtherVideo } from './url-rewriter.ts'

const start = async () => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, cdns: ['a', 'b'] })
  const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
  const end = vi.fn(() => refresher.destroy())
  return { time, backend, refresher, end }
}

describe('endOnOtherVideo', () => {
  it('a URL of the same video ends nothing: older or newer pair, another CDN, the IP-bound host', async () => {
    const { time, refresher, end } = await start()
    const first = refresher.record
    await time.advance(14_000)
    const b = first.cdns?.find((cdn) => cdn.id === 'b')
    for (const url of [first.url, refresher.url, b?.url, b?.url_ip, first.url_ip])
      endOnOtherVideo(refresher, url, end)
    expect(end).not.toHaveBeenCalled()
    expect(refresher.refreshCount).toBe(1)
    refresher.destroy()
  })

  it("another video's URL ends the refresh, once", async () => {
    const { time, backend, refresher, end } = await start()
    const other = refresher.url.replace('/12345_demo/', '/12345_other/')
    endOnOtherVideo(refresher, other, end)
    endOnOtherVideo(refresher, 'https://elsewhere.test/live.m3u8', end)
    expect(end).toHaveBeenCalledTimes(1)
    expect(refresher.destroyed).toBe(true)
    await time.advance(60_000)
    expect(backend.calls).toBe(1)
  })

  it('no URL (null, empty, a preload or manifest object) or no refresher ends nothing', async () => {
    const { refresher, end } = await start()
    for (const url of [null, undefined, '', { url: 'https://elsewhere.test/a.mpd' }])
      endOnOtherVideo(refresher, url, end)
    endOnOtherVideo(undefined, 'https://elsewhere.test/a.m3u8', end)
    expect(end).not.toHaveBeenCalled()
    refresher.destroy()
  })
})
