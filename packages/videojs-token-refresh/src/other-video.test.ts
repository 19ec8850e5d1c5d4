// player.src(otherUrl) outside the plugin's own load() ends the current refresh: the old video's
// refresher would otherwise renew its token, and hold its stream under stream limits, for the
// player's life. A reload of the same video does not. happy-dom has no MediaSource, so no tech
// takes the source: its loadstart is stood in for, as in plugin.test.ts.
import type { TokenRefresher } from '@proj/token-refresh'
import { fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import videojs from 'video.js'
import { describe, expect, it } from 'vitest'
import { usePlayerCdn } from '../test/player-cdn.ts'
import { HLS_TYPE } from './plugin.ts'
import { prepareTokenRefresh } from './prepare.ts'
import { tokenRefreshOf } from './register.ts'

videojs.log.level('off')
const env = usePlayerCdn()

const start = async () => {
  const backend = fakeTokenBackend({ clock: env.time.clock })
  const getToken = env.cdn.issuing(backend.getToken)
  const element = document.createElement('video')
  document.body.append(element)
  const player = videojs(element, await prepareTokenRefresh(testRefreshOptions(env.time, getToken)))
  env.players.push(player)
  const plugin = tokenRefreshOf(player)
  const refresher = (await plugin?.ready) as TokenRefresher
  const plays = (src: string) => {
    player.src({ src, type: HLS_TYPE })
    player.trigger('loadstart')
  }
  return { backend, plugin, refresher, plays }
}

describe('a source set outside load()', () => {
  it('of another video ends the refresh: no getToken call after it, no timer left', async () => {
    const { backend, plugin, refresher, plays } = await start()
    await env.time.advance(14_000)
    expect(backend.calls).toBe(2)
    plays(refresher.url.replace('/12345_demo/', '/12345_other/'))
    expect(refresher.destroyed).toBe(true)
    expect(plugin?.refresher).toBeUndefined()
    expect(env.time.pending).toBe(0)
    await env.time.advance(120_000)
    expect(backend.calls).toBe(2)
  })

  it('of this video (older or newer pair, the IP-bound host) keeps it refreshing', async () => {
    const { backend, plugin, refresher, plays } = await start()
    const first = refresher.record
    await env.time.advance(14_000)
    for (const url of [first.url, refresher.url, first.url_ip]) plays(url)
    expect(refresher.destroyed).toBe(false)
    expect(plugin?.refresher).toBe(refresher)
    await env.time.advance(14_000)
    expect(backend.calls).toBe(3)
  })
})
