// Another video's MPD loaded on an attached dash.js player (attachSource(otherUrl) instead of a
// new createTokenRefresh) ends the refresh: the old video's refresher would otherwise renew its
// token, and hold its stream under stream limits, for the player's life. A reload (or an MPD
// update) of the same video does not. dash.js loads nothing without MediaSource (happy-dom has
// none): its ManifestLoader's announcement, MANIFEST_LOADING_STARTED with the TextRequest, is
// triggered on the real player's event bus as ManifestLoader.load does.
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import * as dashjs from 'dashjs'
import { describe, expect, it } from 'vitest'
import { createTokenRefresh } from './create-token-refresh.ts'

const start = async () => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, cdns: ['a', 'b'] })
  const refresh = await createTokenRefresh({
    ...testRefreshOptions(time, backend.getToken),
    dashjs,
  })
  const player = dashjs.MediaPlayer().create()
  refresh.attach(player)
  // dash.js's types take an event object for the type, its runtime the event's name
  const type = dashjs.MediaPlayer.events.MANIFEST_LOADING_STARTED as unknown
  const loads = (url: string) =>
    player.trigger(type as Parameters<typeof player.trigger>[0], { request: { url } }, {})
  return { time, backend, refresh, loads }
}

describe('an MPD load on an attached player', () => {
  it('of another video ends the refresh: no getToken call after it, no timer left', async () => {
    const { time, backend, refresh, loads } = await start()
    await time.advance(14_000)
    expect(backend.calls).toBe(2)
    loads(refresh.url.replace('/12345_demo/', '/12345_other/'))
    expect(refresh.refresher.destroyed).toBe(true)
    expect(time.pending).toBe(0)
    await time.advance(120_000)
    expect(backend.calls).toBe(2)
  })

  it('of this video (older or newer pair, its other CDN, the IP-bound host) keeps it refreshing', async () => {
    const { time, backend, refresh, loads } = await start()
    const first = refresh.refresher.record
    await time.advance(14_000)
    const b = first.cdns?.find((cdn) => cdn.id === 'b')
    for (const url of [first.url, refresh.url, b?.url ?? '', first.url_ip]) loads(url)
    expect(refresh.refresher.destroyed).toBe(false)
    await time.advance(14_000)
    expect(backend.calls).toBe(3)
    refresh.destroy()
  })
})
