import type { NativeProtection, TokenRefreshWorker } from '@proj/sw-token-refresh'
import { type ProtectionMode, TokenRefresher, type TokenRefreshOptions } from '@proj/token-refresh'
import videojs from 'video.js'
import type PluginType from 'video.js/dist/types/plugin'
import { type FailureWatch, watchFailures } from './failure-watch.ts'
import type { FailingPlayer } from './give-up.ts'
import type { RevivablePlayer } from './revive.ts'
import { installVhsHooks, type VhsXhr } from './vhs-hooks.ts'

type Player = ReturnType<typeof videojs>
type TechOptions = {
  vhs?: { overrideNative?: boolean; experimentalUseMMS?: boolean }
  nativeAudioTracks?: boolean
  nativeVideoTracks?: boolean
}

/** The plugin's options: the core's, plus how native playback is protected. */
export interface TokenRefreshPluginOptions extends TokenRefreshOptions {
  /**
   * `hooks` (default): VHS with its request hooks wherever MSE exists, and native playback
   * (iPhones) protected automatically. `service-worker` / `session` / `swap`: let the browser play HLS
   * natively and protect it that way (for tests, or when you know better).
   */
  mode?: ProtectionMode
  /** The page's service worker connection (`registerTokenRefreshWorker()`); without it, swaps. */
  worker?: TokenRefreshWorker | Promise<TokenRefreshWorker> | undefined
  /**
   * Native playback only: fetches an edge session URL (`GET /session`), used where the service
   * worker does not protect the element, instead of a source swap per token lifetime.
   */
  getSessionUrl?: (() => Promise<string>) | undefined
}

/** The MIME type VHS recognises for HLS. */
export const HLS_TYPE = 'application/x-mpegURL'

/**
 * Tech options that make VHS (MSE), not the browser's native HLS, play the stream: with native
 * playback no request hook runs, and Chromium reports native HLS support.
 */
export const VHS_TECH_OPTIONS = {
  vhs: { overrideNative: true },
  nativeAudioTracks: false,
  nativeVideoTracks: false,
} as const

/**
 * The tech options for `mode`: VHS over native HLS for `hooks` (on ManagedMediaSource where
 * that is all there is: iPhones with iOS 17.1+), native HLS for the other modes.
 */
export function techOptions(html5: TechOptions, mode: ProtectionMode = 'hooks'): TechOptions {
  if (mode !== 'hooks')
    return Object.assign(html5, { vhs: { ...html5.vhs, overrideNative: false } })
  const onlyManaged = typeof MediaSource === 'undefined' && 'ManagedMediaSource' in globalThis
  return Object.assign(html5, VHS_TECH_OPTIONS, {
    vhs: { ...html5.vhs, overrideNative: true, ...(onlyManaged && { experimentalUseMMS: true }) },
  })
}

const Plugin = videojs.getPlugin('plugin') as typeof PluginType
const hooked = new WeakSet<VhsXhr>()

/**
 * The video.js plugin `tokenRefresh` (spec 4.15): options `getToken`, `ipBound`,
 * `refreshLeadSeconds`, `onTokenRefreshed`, plus `onError`. One instance per player, disposed
 * with it; hooks are per player (VHS's `xhr.onRequest`/`onResponse`), so several players can
 * share a page.
 *
 * @example
 * ```ts
 * const player = videojs('player', await prepareTokenRefresh({ getToken, refreshLeadSeconds: 10 }))
 * player.tokenRefresh().refresher?.record // the current token record
 * ```
 */
export class TokenRefreshPlugin extends Plugin {
  /** The current video's refresher, once its first token is in. */
  refresher: TokenRefresher | undefined
  /** Settles when the refresher of the latest `load` exists (or failed). */
  ready: Promise<TokenRefresher | undefined>
  /** Native playback's protection, when the player ended up without VHS. */
  native: Promise<NativeProtection | undefined> | undefined
  #remove: (() => void) | undefined
  /** The current refresher's watch for failures (revival, give-up), told of VHS's answers. */
  #failures: FailureWatch | undefined
  #generation = 0
  #disposed = false
  #options: TokenRefreshPluginOptions

  constructor(player: Player, options: TokenRefreshPluginOptions) {
    super(player)
    this.#options = options
    // Plugins given in the player options run before the tech exists: the tech then starts
    // with these options. The tech's own copy covers a plugin started later.
    const playerOptions = (player as unknown as { options_: { html5?: TechOptions } }).options_
    playerOptions.html5 ??= {}
    techOptions(playerOptions.html5, options.mode)
    const tech = player.tech(true) as unknown as { options_?: TechOptions } | undefined
    if (tech?.options_) techOptions(tech.options_, options.mode)
    player.on('xhr-hooks-ready', this.#onXhrHooksReady)
    player.on('loadstart', this.#hookCurrentTech)
    this.ready = this.load(options, false)
  }

  /**
   * Switches to another video (a new video means a new token): fetches its first token, then
   * plays it. Also used by the constructor, which leaves a source from the player options alone.
   *
   * @example
   * ```ts
   * await player.tokenRefresh().load({ getToken: () => fetchToken('/token?video=other'), refreshLeadSeconds: 10 })
   * ```
   */
  async load(options: TokenRefreshPluginOptions, play = true): Promise<TokenRefresher | undefined> {
    this.#end()
    this.#options = options
    const generation = ++this.#generation
    const pending = TokenRefresher.create(options)
    this.ready = pending.catch(() => undefined)
    try {
      const refresher = await pending
      // disposed meanwhile, or another load() started: this one is obsolete
      if (this.#disposed || generation !== this.#generation) {
        refresher.destroy()
        return undefined
      }
      this.refresher = refresher
      // a CDN that refuses every token: the player's own error, not a silent wait; a token
      // outage: the player brought back (both loaded with the first failure)
      this.#failures = watchFailures(
        this.player as unknown as RevivablePlayer & FailingPlayer,
        refresher,
        options.onError,
        { type: HLS_TYPE },
      )
      if (play || !this.player.currentSrc()) this.player.src({ src: refresher.url, type: HLS_TYPE })
      // the source stays: the plugin may have started after the tech took it (and after its
      // xhr-hooks-ready and loadstart), so the tech is hooked now, not at the next source
      else this.#hookCurrentTech()
      return refresher
    } catch (error) {
      options.onError?.(error)
      // MEDIA_ERR_NETWORK: without a first token nothing can play.
      const mediaError = { code: 2, message: `token refresh: ${String(error)}` }
      if (!this.#disposed)
        this.player.error(mediaError as unknown as Parameters<Player['error']>[0])
      return undefined
    }
  }

  override dispose(): void {
    this.#disposed = true
    this.#end()
    this.#remove?.()
    super.dispose()
  }

  /** Stops the current video's refresh: its refresher, its failure watch, its native protection. */
  #end() {
    this.#failures?.stop()
    this.#failures = undefined
    this.refresher?.destroy()
    this.refresher = undefined
    void this.native?.then((protection) => protection?.destroy())
    this.native = undefined
  }

  // VHS announces its new xhr from inside the tech's constructor, before the player knows the
  // tech: install right after (its first request, the master playlist, carries the fresh
  // initial pair) and again on loadstart in case the announcement came before this plugin.
  #onXhrHooksReady = () => queueMicrotask(this.#hookCurrentTech)
  #hookCurrentTech = () => {
    const tech = this.player?.tech(true) as unknown as
      | { vhs?: { xhr: VhsXhr }; el(): Element }
      | undefined
    const vhs = tech?.vhs
    if (!vhs) return this.#protectNative(tech?.el())
    if (hooked.has(vhs.xhr)) return
    this.#remove?.()
    const { xhr } = vhs
    const installed = installVhsHooks(
      xhr,
      () => this.refresher,
      (url, status, final) => this.#failures?.observe(url, status, final),
    )
    vhs.xhr = installed.xhr
    hooked.add(installed.xhr)
    this.#remove = () => {
      installed.remove()
      // VHS's own xhr back: left wrapped, it would keep this plugin's stopped refresher, and a
      // plugin started again on the same tech would take it as hooked already
      vhs.xhr = xhr
    }
  }

  // No VHS on the tech: the browser plays HLS itself and no hook runs. The native protection
  // is loaded on demand, so MSE pages never download it.
  #protectNative(element: Element | undefined) {
    const refresher = this.refresher
    if (this.native || !refresher || !(element instanceof HTMLMediaElement)) return
    const { mode, worker, getSessionUrl } = this.#options
    this.native = import('@proj/sw-token-refresh')
      .then(({ protectNativePlayback }) =>
        protectNativePlayback(element, refresher, {
          worker,
          getSessionUrl,
          mode: mode === 'hooks' || !mode ? 'auto' : mode,
          setSource: false,
        }),
      )
      .catch((error: unknown) => {
        this.#options.onError?.(error)
        return undefined
      })
  }
}
