import { TokenRefresher, type TokenRefreshOptions } from '@proj/token-refresh'
import videojs from 'video.js'
import type PluginType from 'video.js/dist/types/plugin'
import { installVhsHooks, type VhsXhr } from './vhs-hooks.ts'

type Player = ReturnType<typeof videojs>
type TechOptions = { vhs?: object; nativeAudioTracks?: boolean; nativeVideoTracks?: boolean }

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

const preferVhs = (html5: TechOptions) =>
  Object.assign(html5, VHS_TECH_OPTIONS, { vhs: { ...html5.vhs, overrideNative: true } })

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
  #remove: (() => void) | undefined
  #generation = 0
  #disposed = false

  constructor(player: Player, options: TokenRefreshOptions) {
    super(player)
    // Plugins given in the player options run before the tech exists: the tech then starts
    // with these options. The tech's own copy covers a plugin started later.
    const playerOptions = (player as unknown as { options_: { html5?: TechOptions } }).options_
    playerOptions.html5 ??= {}
    preferVhs(playerOptions.html5)
    const tech = player.tech(true) as unknown as { options_?: TechOptions } | undefined
    if (tech?.options_) preferVhs(tech.options_)
    player.on('xhr-hooks-ready', this.#hook)
    player.on('loadstart', this.#install)
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
  async load(options: TokenRefreshOptions, play = true): Promise<TokenRefresher | undefined> {
    this.refresher?.destroy()
    this.refresher = undefined
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
      if (play || !this.player.currentSrc()) this.player.src({ src: refresher.url, type: HLS_TYPE })
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
    this.refresher?.destroy()
    this.#remove?.()
    super.dispose()
  }

  // VHS announces its new xhr from inside the tech's constructor, before the player knows the
  // tech: install right after (its first request, the master playlist, carries the fresh
  // initial pair) and again on loadstart in case the announcement came before this plugin.
  #hook = () => queueMicrotask(this.#install)
  #install = () => {
    const vhs = (this.player?.tech(true) as unknown as { vhs?: { xhr: VhsXhr } } | undefined)?.vhs
    if (!vhs || hooked.has(vhs.xhr)) return
    this.#remove?.()
    const installed = installVhsHooks(vhs.xhr, () => this.refresher)
    vhs.xhr = installed.xhr
    hooked.add(installed.xhr)
    this.#remove = installed.remove
  }
}
