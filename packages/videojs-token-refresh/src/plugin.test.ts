import type { TokenRefreshOptions } from '@proj/token-refresh'
import { fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import videojs from 'video.js'
import { describe, expect, it, vi } from 'vitest'
import { usePlayerCdn } from '../test/player-cdn.ts'
import { HLS_TYPE, type TokenRefreshPlugin } from './plugin.ts'
import { prepareTokenRefresh } from './prepare.ts'
import { tokenRefreshOf } from './register.ts'
import type { VhsXhr } from './vhs-hooks.ts'

type Player = ReturnType<typeof videojs>
// happy-dom has no MediaSource: every player logs 'no compatible source'; the tests check errors themselves.
videojs.log.level('off')
const vhsXhr = (videojs as unknown as { Vhs: { xhr: VhsXhr } }).Vhs.xhr

const env = usePlayerCdn()

const backendFor = (video: string, streams = false) => {
  const backend = fakeTokenBackend({ clock: env.time.clock, video, streams })
  return { backend, getToken: env.cdn.issuing(backend.getToken) }
}
const options = (getToken: TokenRefreshOptions['getToken']) =>
  testRefreshOptions(env.time, getToken)
const newPlayer = (playerOptions: object) => {
  const element = document.createElement('video')
  document.body.append(element)
  const player = videojs(element, playerOptions)
  env.players.push(player)
  return player
}
/**
 * What VHS does when it takes a source, in video.js's order: inside the tech's constructor,
 * `tech.vhs.xhr = xhrFactory()` and `xhr-hooks-ready` while `player.tech()` is still undefined;
 * the player learns its tech when the constructor returns. happy-dom has no MediaSource, so no
 * tech takes the source here: the tech is stood in for (real VHS runs in Chromium, in e2e).
 */
const vhsTakesSource = async (player: Player) => {
  const tech = { vhs: { xhr: vhsXhr } }
  Object.assign(player, { tech: () => undefined })
  player.trigger('xhr-hooks-ready')
  Object.assign(player, { tech: () => tech })
  await Promise.resolve()
  return tech.vhs
}

describe('prepareTokenRefresh', () => {
  it('fetches the first token before the player exists and builds VHS-first options', async () => {
    const { backend, getToken } = backendFor('12345_demo')
    const prepared = await prepareTokenRefresh(options(getToken))
    expect(backend.calls).toBe(1)
    expect(prepared.sources).toEqual([
      { src: expect.stringContaining('/tok0001plain/'), type: HLS_TYPE },
    ])
    expect(prepared.html5.vhs?.overrideNative).toBe(true)
    expect(Object.keys(prepared.plugins)).toEqual(['tokenRefresh'])
    const bound = await prepareTokenRefresh({ ...options(getToken), ipBound: true })
    expect(bound.sources[0]?.src).toContain('/tok0002bound/')
  })

  it('the plugin reuses that first record instead of fetching again', async () => {
    const { backend, getToken } = backendFor('12345_demo')
    const player = newPlayer(await prepareTokenRefresh(options(getToken)))
    const refresher = await tokenRefreshOf(player)?.ready
    expect(backend.calls).toBe(1)
    expect(refresher?.record.token).toBe('tok0001plain')
    expect(player.currentSrc()).toContain('/tok0001plain/')
  })
})

describe('the tokenRefresh plugin', () => {
  it('makes VHS, not native HLS, play: overrideNative in the options the tech starts with', async () => {
    const { registerTokenRefresh } = await import('./register.ts')
    registerTokenRefresh()
    const { getToken } = backendFor('12345_demo')
    // started from bare player options, without prepareTokenRefresh's html5 block
    const player = newPlayer({ plugins: { tokenRefresh: options(getToken) } })
    const html5 = (player as unknown as { options_: { html5: Record<string, unknown> } }).options_
      .html5
    expect(html5).toMatchObject({
      vhs: { overrideNative: true },
      nativeAudioTracks: false,
      nativeVideoTracks: false,
    })
  })

  it('hooks the per-player VHS xhr: requests leave on the current pair', async () => {
    const { getToken } = backendFor('12345_demo')
    const player = newPlayer(await prepareTokenRefresh(options(getToken)))
    await tokenRefreshOf(player)?.ready
    const vhs = await vhsTakesSource(player)
    expect(vhs.xhr).not.toBe(vhsXhr) // the recovering wrapper around it
    const first = player.currentSrc()
    await env.time.advance(14_000)
    await new Promise<void>((resolve) =>
      vhs.xhr({ uri: first, responseType: 'text' }, () => resolve()),
    )
    expect(env.cdn.hits.map((hit) => hit.token)).toEqual(['tok0002plain'])
  })

  it('starts from player options alone: fetches, then sets the source', async () => {
    const { backend, getToken } = backendFor('12345_demo')
    const { registerTokenRefresh } = await import('./register.ts')
    registerTokenRefresh()
    const player = newPlayer({ plugins: { tokenRefresh: options(getToken) } })
    await tokenRefreshOf(player)?.ready
    expect(backend.calls).toBe(1)
    expect(player.currentSrc()).toContain('/tok0001plain/')
  })

  it('keeps several players on one page apart', async () => {
    const a = backendFor('12345_first')
    const b = backendFor('12345_second')
    const playerA = newPlayer(await prepareTokenRefresh(options(a.getToken)))
    const playerB = newPlayer(await prepareTokenRefresh(options(b.getToken)))
    const [refresherA, refresherB] = await Promise.all([
      tokenRefreshOf(playerA)?.ready,
      tokenRefreshOf(playerB)?.ready,
    ])
    expect(refresherA?.url).toContain('/12345_first/')
    expect(refresherB?.url).toContain('/12345_second/')
    // B's refresher never rewrites A's URLs onto B's token
    const urlA = refresherA?.url ?? ''
    expect(refresherB?.rewrite(urlA)).toBe(urlA)
    playerA.dispose()
    expect(refresherB?.refreshCount).toBe(0)
    await env.time.advance(14_000)
    expect(refresherB?.refreshCount).toBe(1)
    expect(refresherA?.refreshCount).toBe(0)
  })

  it('switches video with load(): a new token, the new source, the old refresher stopped', async () => {
    const first = backendFor('12345_demo')
    const second = backendFor('12345_other')
    const player = newPlayer(await prepareTokenRefresh(options(first.getToken)))
    const plugin = tokenRefreshOf(player)
    const old = await plugin?.ready
    const next = await plugin?.load(options(second.getToken))
    expect(player.currentSrc()).toContain('/12345_other/tok0001plain/')
    await env.time.advance(60_000)
    expect(old?.refreshCount).toBe(0)
    expect(next?.refreshCount).toBeGreaterThan(0)
    expect(first.backend.calls).toBe(1)
  })

  it('is disposed with the player: no timer, no hook left', async () => {
    const { backend, getToken } = backendFor('12345_demo')
    const player = newPlayer(await prepareTokenRefresh(options(getToken)))
    await tokenRefreshOf(player)?.ready
    const vhs = await vhsTakesSource(player)
    player.dispose()
    expect(env.time.pending).toBe(0)
    await env.time.advance(120_000)
    expect(backend.calls).toBe(1)
    const sets = vhsXhr as unknown as {
      _requestCallbackSet?: Set<unknown>
      _responseCallbackSet?: Set<unknown>
    }
    expect(sets._requestCallbackSet?.size ?? 0).toBe(0)
    expect(sets._responseCallbackSet?.size ?? 0).toBe(0)
    expect(vhs).toBeDefined()
  })

  it('started again after its own dispose(), hooks VHS again: requests leave on the new pair', async () => {
    const first = backendFor('12345_demo')
    const player = newPlayer(await prepareTokenRefresh(options(first.getToken)))
    await tokenRefreshOf(player)?.ready
    const vhs = await vhsTakesSource(player)
    tokenRefreshOf(player)?.dispose()
    expect(vhs.xhr).toBe(vhsXhr) // VHS's own xhr back, not a wrapper around a stopped refresher
    const second = backendFor('12345_demo')
    const start = player as unknown as { tokenRefresh(options: object): TokenRefreshPlugin }
    const refresher = await start.tokenRefresh(options(second.getToken)).ready
    player.trigger('loadstart') // the tech is VHS's as before: no new xhr-hooks-ready
    await env.time.advance(14_000)
    await new Promise<void>((resolve) =>
      vhs.xhr({ uri: player.currentSrc(), responseType: 'text' }, () => resolve()),
    )
    expect(refresher?.refreshCount).toBe(1)
    expect(env.cdn.hits.map((hit) => hit.token)).toEqual([refresher?.token])
  })

  it('started on a player whose VHS already took the source, hooks it at once', async () => {
    const { getToken } = backendFor('12345_demo')
    const prepared = await prepareTokenRefresh(options(getToken))
    // the page's own source first, the plugin later (player.tokenRefresh(options))
    const player = newPlayer({ sources: prepared.sources, html5: prepared.html5 })
    const vhs = await vhsTakesSource(player)
    const start = player as unknown as { tokenRefresh(options: object): TokenRefreshPlugin }
    const refresher = await start.tokenRefresh(prepared.plugins.tokenRefresh).ready
    expect(vhs.xhr).not.toBe(vhsXhr)
    await env.time.advance(14_000)
    await new Promise<void>((resolve) =>
      vhs.xhr({ uri: player.currentSrc(), responseType: 'text' }, () => resolve()),
    )
    expect(env.cdn.hits.map((hit) => hit.token)).toEqual([refresher?.token])
  })

  it('reports a failed first fetch through onError and a player error', async () => {
    const { registerTokenRefresh } = await import('./register.ts')
    registerTokenRefresh()
    const onError = vi.fn()
    const failing = async () => {
      throw new Error('backend down')
    }
    const player = newPlayer({ plugins: { tokenRefresh: { ...options(failing), onError } } })
    await tokenRefreshOf(player)?.ready
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'backend down' }))
    expect(player.error()?.code).toBe(2)
  })
})

describe('a CDN that refuses every token', () => {
  it("ends in the player's own error (MEDIA_ERR_NETWORK) and VHS's loaders stop", async () => {
    const { getToken } = backendFor('12345_demo')
    const onError = vi.fn()
    const player = newPlayer(await prepareTokenRefresh({ ...options(getToken), onError }))
    await tokenRefreshOf(player)?.ready
    const vhs = await vhsTakesSource(player)
    // VHS's playlist controller, whose pauseLoading() its own fatal errors call
    let paused = 0
    Object.assign(vhs, { playlistController_: { pauseLoading: () => paused++ } })
    // (happy-dom has no MediaSource: the player's 'no compatible source', code 4, is not ours)
    const errorEvents: unknown[] = []
    player.on('error', () => {
      if (player.error()?.code === 2) errorEvents.push(player.error())
    })
    env.cdn.rejectAll()
    const load = (uri: string) =>
      new Promise<void>((resolve) => vhs.xhr({ uri, responseType: 'text' }, () => resolve()))
    // one request, retried after two refreshes: three tokens refused in a row
    await load(player.currentSrc())
    expect(env.cdn.hits.map((hit) => hit.status)).toEqual([403, 403, 403])
    expect(onError).toHaveBeenCalledTimes(1)
    expect(onError.mock.calls[0]?.[0]).toMatchObject({ name: 'TokenRejectedError' })
    // the give-up is loaded with the first refusal (failure-watch.ts): the player's error once it is in
    await vi.waitFor(() => expect(errorEvents).toHaveLength(1))
    expect(player.error()?.code).toBe(2)
    expect(player.error()?.message).toContain('SECRET_KEY and CLIENT_ID')
    expect(paused).toBe(1)
    // nothing more is reported, however VHS goes on
    await load(player.currentSrc())
    expect(onError).toHaveBeenCalledTimes(1)
    expect(errorEvents).toHaveLength(1)
  })
})

describe('a CDN that refuses every token, where the refresher cannot count it', () => {
  it('errors when VHS is handed the refusal of a token fresh from a recovery refresh', async () => {
    const { getToken } = backendFor('12345_demo')
    // from the 3rd call on, the record of the 2nd: a backend that keeps signing the same token
    // (one that rounds expiries), even when asked again a second later
    let calls = 0
    let last: Awaited<ReturnType<typeof getToken>> | undefined
    const sameAgain = async () => {
      if (++calls >= 3 && last) return last
      last = await getToken()
      return last
    }
    const onError = vi.fn()
    const player = newPlayer(await prepareTokenRefresh({ ...options(sameAgain), onError }))
    const refresher = await tokenRefreshOf(player)?.ready
    const vhs = await vhsTakesSource(player)
    env.cdn.rejectAll()
    let answered = false
    vhs.xhr({ uri: player.currentSrc(), responseType: 'text' }, () => {
      answered = true
    })
    // the refresher asks once more, a second later (the fake clock's): the same token
    for (let i = 0; i < 100 && !answered; i++) {
      await env.time.advance(100)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect(calls).toBe(4)
    expect(env.cdn.hits.map((hit) => `${hit.token} ${hit.status}`)).toEqual([
      'tok0001plain 403',
      'tok0002plain 403',
      'tok0002plain 403',
    ])
    // tok0002plain counted once: the refresher has not given up...
    expect(refresher?.rejected).toBe(false)
    // ...but a token fresh from the backend was refused and VHS got the 403
    expect(onError).toHaveBeenCalledTimes(1)
    expect(onError.mock.calls[0]?.[0]).toMatchObject({ name: 'TokenRejectedError' })
    expect(player.error()?.code).toBe(2)
  })

  it('a single refused token whose refresh is accepted is no such case', async () => {
    const { getToken } = backendFor('12345_demo')
    const onError = vi.fn()
    const player = newPlayer(await prepareTokenRefresh({ ...options(getToken), onError }))
    await tokenRefreshOf(player)?.ready
    const vhs = await vhsTakesSource(player)
    env.cdn.revoke('tok0001plain')
    await new Promise<void>((resolve) =>
      vhs.xhr({ uri: player.currentSrc(), responseType: 'text' }, () => resolve()),
    )
    expect(env.cdn.hits.map((hit) => hit.status)).toEqual([410, 200])
    expect(onError).not.toHaveBeenCalled()
    expect(player.error()?.code).not.toBe(2)
  })
})

describe('native playback (no VHS on the tech)', () => {
  /** The browser plays HLS itself: a tech whose element is the <video>, and no `vhs`. */
  const nativeTakesSource = (player: Player) => {
    const element = player.el().querySelector('video') as HTMLVideoElement
    Object.assign(player, { tech: () => ({ el: () => element }) })
    player.trigger('loadstart')
    return element
  }

  it('is noticed and protected (swaps without a worker), loaded on demand', async () => {
    const { getToken } = backendFor('12345_demo')
    const player = newPlayer(await prepareTokenRefresh(options(getToken)))
    const plugin = tokenRefreshOf(player)
    await plugin?.ready
    expect(plugin?.native).toBeUndefined()
    const element = nativeTakesSource(player)
    const protection = await plugin?.native
    expect(protection?.mode).toBe('swap')
    element.src = plugin?.refresher?.url ?? ''
    // a refresh while paused: no swap until the element is played again, then at once
    await env.time.advance(14_000)
    expect(element.src).toContain('/tok0001plain/')
    element.dispatchEvent(new Event('play'))
    await env.time.advance(0)
    expect(element.src).toContain('/tok0002plain/')
    player.dispose()
  })

  it('a forced native mode lets the browser play HLS itself', async () => {
    const { getToken } = backendFor('12345_demo')
    const prepared = await prepareTokenRefresh({ ...options(getToken), mode: 'swap' })
    expect(prepared.html5.vhs?.overrideNative).toBe(false)
    expect(prepared.plugins.tokenRefresh.mode).toBe('swap')
  })

  it('prefers VHS on ManagedMediaSource where MediaSource is missing (iOS 17.1+)', async () => {
    const { techOptions } = await import('./plugin.ts')
    vi.stubGlobal('MediaSource', undefined)
    vi.stubGlobal('ManagedMediaSource', class {})
    try {
      expect(techOptions({}).vhs).toEqual({ overrideNative: true, experimentalUseMMS: true })
    } finally {
      vi.unstubAllGlobals()
    }
    expect(techOptions({}).vhs).toEqual({ overrideNative: true })
  })
})

describe.each(['stream_limit', 'stream_ended'] as const)(
  'the backend refuses the stream (%s)',
  (code) => {
    it("the player's own error at the refused refresh: MEDIA_ERR_NETWORK, the StreamLimitError once", async () => {
      const { backend, getToken } = backendFor('12345_demo', true)
      const onError = vi.fn()
      const player = newPlayer(await prepareTokenRefresh({ ...options(getToken), onError }))
      const refresher = await tokenRefreshOf(player)?.ready
      await vhsTakesSource(player)
      await env.time.advance(14_000)
      // the stream of the first record, handed back through prepareTokenRefresh's getToken
      const stream = refresher?.record.stream
      expect(stream).toMatch(/^[0-9a-f]{32}$/)
      const signal = expect.any(AbortSignal) // each call's timeout (tokenTimeoutMs)
      expect(backend.contexts).toEqual([
        { stream, proposed: true, signal },
        { stream, signal },
      ])
      backend.refuseStreams(code)
      await env.time.advance(14_000)
      await vi.waitFor(() => expect(player.error()?.code).toBe(2))
      expect(player.error()?.message).toMatch(/^token refresh: token backend answered 409/)
      expect(onError).toHaveBeenCalledTimes(1)
      expect(onError.mock.calls[0]?.[0]).toMatchObject({ name: 'StreamLimitError', code })
      expect(refresher?.rejected).toBe(true)
      await env.time.advance(60_000)
      expect(backend.calls).toBe(3)
    })
  },
)
