// The peer range `video.js ^8.5.0` is true: the plugin runs on the lowest admitted video.js
// (8.5.0, bundling VHS 3.3.1: the first VHS whose xhr has onRequest/onResponse/offRequest/
// offResponse and the `xhr-hooks-ready` event, and whose onRequest hooks run before the request
// is opened, 3.3.1's fix) and on the current one. The plugin's modules are loaded afresh per
// version, with the bare specifier `video.js` resolved to that release (both installed side by
// side, `video.js-lowest` being an npm alias). Real VHS xhr, real hooks, real HTTP (tinyCdn).
import { fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import type videojsType from 'video.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { usePlayerCdn } from '../test/player-cdn.ts'

type VideoJs = typeof videojsType

/** Where each release is installed (package.json devDependencies). */
const RELEASES = [
  { name: 'current', specifier: 'video.js', version: /^8\.\d+\.\d+$/ },
  { name: 'lowest admitted', specifier: 'video.js-lowest', version: /^8\.5\.0$/ },
] as const

const env = usePlayerCdn()
afterEach(() => {
  vi.doUnmock('video.js')
  vi.resetModules()
})

/** The plugin's modules and video.js, with `video.js` resolving to `specifier`. */
async function loadWith(specifier: string) {
  vi.resetModules()
  if (specifier !== 'video.js')
    vi.doMock('video.js', async () => (await import('video.js-lowest')) as unknown)
  const videojs = (await import('video.js')).default as VideoJs
  videojs.log.level('off')
  const { prepareTokenRefresh } = await import('./prepare.ts')
  const { tokenRefreshOf } = await import('./register.ts')
  return { videojs, prepareTokenRefresh, tokenRefreshOf }
}

describe.each(RELEASES)('video.js $name', ({ specifier, version }) => {
  it('bundles a VHS with every hook the plugin uses', async () => {
    const { videojs } = await loadWith(specifier)
    expect((videojs as unknown as { VERSION: string }).VERSION).toMatch(version)
    const vhs = videojs as unknown as {
      Vhs: { xhr: Record<string, unknown> }
      VhsHandler: { version(): Record<string, string> }
    }
    const [major = 0, minor = 0, patch = 0] = (
      vhs.VhsHandler.version()['@videojs/http-streaming'] ?? ''
    )
      .split('.')
      .map(Number)
    expect(major * 1e6 + minor * 1e3 + patch).toBeGreaterThanOrEqual(3_003_001)
    for (const hook of ['onRequest', 'onResponse', 'offRequest', 'offResponse'])
      expect(typeof vhs.Vhs.xhr[hook]).toBe('function')
  })

  it('plays on fresh pairs: plugin, VHS hooks, a rewrite and a 403 recovery through its xhr', async () => {
    const { videojs, prepareTokenRefresh, tokenRefreshOf } = await loadWith(specifier)
    const backend = fakeTokenBackend({ clock: env.time.clock })
    const onError = vi.fn()
    const element = document.createElement('video')
    document.body.append(element)
    const prepared = await prepareTokenRefresh({
      ...testRefreshOptions(env.time, env.cdn.issuing(backend.getToken)),
      onError,
    })
    const player = videojs(element, prepared)
    env.players.push(player)
    const plugin = tokenRefreshOf(player)
    expect((await plugin?.ready)?.record.token).toBe('tok0001plain')
    expect(player.currentSrc()).toContain('/tok0001plain/')

    // VHS takes the source: in the tech's constructor, `xhr-hooks-ready` before the player
    // knows its tech (happy-dom has no MediaSource, so the tech is stood in for; its xhr is
    // this release's VHS xhr, built by the same factory as each player's)
    const vhsXhr = (videojs as unknown as { Vhs: { xhr: unknown } }).Vhs.xhr
    const tech = { vhs: { xhr: vhsXhr as (options: object, callback: () => void) => unknown } }
    Object.assign(player, { tech: () => undefined })
    player.trigger('xhr-hooks-ready')
    Object.assign(player, { tech: () => tech })
    await Promise.resolve()
    expect(tech.vhs.xhr).not.toBe(vhsXhr)
    const load = (uri: string) =>
      new Promise<void>((resolve) => tech.vhs.xhr({ uri, responseType: 'text' }, () => resolve()))

    // onRequest: the old URL leaves on the pair of the refresh
    const master = player.currentSrc()
    await env.time.advance(14_000)
    await load(master)
    // onResponse + the wrapper: a 403 refreshes and the request goes again, on the new pair
    await env.time.advance(14_000)
    env.cdn.failOnce('seg_000.ts', 403)
    await load(new URL('v0/seg_000.ts', master).href)
    expect(env.cdn.hits.map((hit) => `${hit.token} ${hit.path} ${hit.status}`)).toEqual([
      'tok0002plain master.m3u8 200',
      'tok0003plain v0/seg_000.ts 403',
      'tok0004plain v0/seg_000.ts 200',
    ])

    // a CDN that refuses every token: onError and the player's own error
    env.cdn.rejectAll()
    await load(master)
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ name: 'TokenRejectedError' }))
    expect(player.error()?.code).toBe(2)

    // disposed with the player: no hook left on this release's xhr
    player.dispose()
    const sets = vhsXhr as {
      _requestCallbackSet?: Set<unknown>
      _responseCallbackSet?: Set<unknown>
    }
    expect(sets._requestCallbackSet?.size ?? 0).toBe(0)
    expect(sets._responseCallbackSet?.size ?? 0).toBe(0)
  })
})
