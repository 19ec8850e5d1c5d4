// player.load() of another video on an attached Shaka Player (instead of a new
// createTokenRefresh) ends the refresh: the old video's refresher would otherwise renew its token,
// and hold its stream under stream limits, for the player's life. A reload of the same video does
// not. On the lowest admitted Shaka too, whose 'loading' event names no asset. No video element
// here: Shaka's load then fails at once (NO_VIDEO_ELEMENT), after the refresh has decided.
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import type shakaType from 'shaka-player'
import { describe, expect, it } from 'vitest'
import { createTokenRefresh } from './create-token-refresh.ts'

type Shaka = typeof shakaType

// a variable specifier: the alias has its own copy of Shaka's global type declarations
const LOWEST: string = 'shaka-player-lowest'
const RELEASES = [
  { name: 'current', load: () => import('shaka-player') },
  { name: 'lowest admitted', load: () => import(LOWEST) },
]

describe.each(RELEASES)('player.load() on Shaka $name', ({ load }) => {
  const start = async () => {
    const shaka = ((await load()) as { default: Shaka }).default
    shaka.polyfill.installAll()
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, cdns: ['a', 'b'] })
    const refresh = await createTokenRefresh(testRefreshOptions(time, backend.getToken))
    const player = new shaka.Player()
    refresh.attach(player)
    const loads = (url: string) => player.load(url).catch(() => undefined)
    return { time, backend, refresh, player, loads }
  }

  it('of another video ends the refresh: no getToken call after it, no timer left', async () => {
    const { time, backend, refresh, player, loads } = await start()
    await time.advance(14_000)
    expect(backend.calls).toBe(2)
    await loads(refresh.url.replace('/12345_demo/', '/12345_other/'))
    expect(refresh.refresher.destroyed).toBe(true)
    expect(time.pending).toBe(0)
    await time.advance(120_000)
    expect(backend.calls).toBe(2)
    await player.destroy()
  })

  it('of this video (older or newer pair, its other CDN, the IP-bound host) keeps it refreshing', async () => {
    const { time, backend, refresh, player, loads } = await start()
    const first = refresh.refresher.record
    await time.advance(14_000)
    const b = first.cdns?.find((cdn) => cdn.id === 'b')
    for (const url of [first.url, refresh.url, b?.url ?? '', first.url_ip]) await loads(url)
    expect(refresh.refresher.destroyed).toBe(false)
    await time.advance(14_000)
    expect(backend.calls).toBe(3)
    await player.destroy()
    expect(time.pending).toBe(0)
  })
})

describe("Shaka's 'loading' event", () => {
  it('ends the refresh on a load that bypasses the wrapped load() (as a preload names its asset)', async () => {
    const shaka = (await import('shaka-player')).default
    shaka.polyfill.installAll()
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock })
    const refresh = await createTokenRefresh(testRefreshOptions(time, backend.getToken))
    const player = new shaka.Player()
    await player.attach(document.createElement('video'))
    refresh.attach(player)
    const ownLoad = shaka.Player.prototype.load
    // unreachable: the manifest fails, which is no matter here
    const other = 'http://127.0.0.1:9/videos/12345_other/tok0001plain/1999999999/master.m3u8'
    const loading = new Promise((resolve) => player.addEventListener('loading', resolve))
    void ownLoad.call(player, other).catch(() => undefined)
    await loading
    expect(refresh.refresher.destroyed).toBe(true)
    expect(time.pending).toBe(0)
    await player.destroy()
  })
})
