import type { NativeProtection, NativeProtectionOptions } from '@proj/sw-token-refresh'
import { TokenRefresher, type TokenRefreshOptions } from '@proj/token-refresh'
import type { default as Hls, HlsConfig } from 'hls.js'
import { watchFailures } from './failure-watch.ts'
import { assertHlsClass, type HlsClass } from './hls-class.ts'
import { recoveringPolicies } from './retry-policy.ts'
import { type LoaderClass, tokenLoader } from './token-loader.ts'

/** The options of {@link createTokenRefresh}: the core's, plus the page's `Hls` class and config. */
export interface HlsTokenRefreshOptions extends TokenRefreshOptions {
  /**
   * The `Hls` class the page plays with (`import Hls from 'hls.js'`, `'hls.js/light'` or a build
   * of its own). Required: this package never imports hls.js itself, so the page bundles it once.
   */
  Hls: HlsClass
  /**
   * Your own hls.js options. A `loader`, `pLoader` or `fLoader` of yours is wrapped, so its
   * requests carry the current pair too; `refresh.hlsConfig` returns the wrapped ones.
   */
  hlsConfig?: Partial<HlsConfig>
}

const LOADERS = ['loader', 'pLoader', 'fLoader'] as const
type LoaderName = (typeof LOADERS)[number]

/** What {@link createTokenRefresh} gives an hls.js page. */
export interface HlsTokenRefresh {
  /** The core: current record, `refreshCount`, `tokenrefreshed`/`error` events. */
  readonly refresher: TokenRefresher
  /** The master playlist to `loadSource` (`url`, or `url_ip` when `ipBound`). */
  readonly url: string
  /**
   * Your `hlsConfig` with `loader` (and your `pLoader`/`fLoader`, if any) wrapped, plus the
   * recovering load policies: `new Hls(refresh.hlsConfig)`. Options spread after it must not
   * replace a loader ({@link HlsTokenRefresh.attach} throws): pass yours in `hlsConfig`.
   */
  readonly hlsConfig: Partial<HlsConfig>
  /**
   * Ties the refresh to `hls`: a fatal network error is undone when the next token arrives
   * (an outage longer than a token's life); a CDN that refuses every token ends in hls.js's own
   * fatal error, with the `TokenRejectedError` as `error`; and `hls.destroy()` stops every
   * timer and listener.
   *
   * @throws TypeError when `hls` was built with a `loader`, `pLoader` or `fLoader` that is not
   * (or does not extend) the one of `refresh.hlsConfig`: its requests would bypass the token.
   * @throws Error once the refresh has ended (`hls.destroy()` of an attached Hls, `destroy()`): a
   * new Hls needs a new `createTokenRefresh`.
   */
  attach(hls: Hls): void
  /**
   * For browsers where `Hls.isSupported()` is false (iPhones without MSE): plays `refresh.url`
   * natively in `video`, protected by the service worker when `worker` is given and sees the
   * media, else by source swaps (`mode` forces one). Loaded on demand: MSE pages never fetch it.
   */
  attachNative(
    video: HTMLMediaElement,
    options?: Omit<NativeProtectionOptions, 'setSource'>,
  ): Promise<NativeProtection>
  /** Stops every timer and listener now. */
  destroy(): void
}

/**
 * Fetches the initial token (before the player exists, as spec 4.15 asks) and returns the
 * hls.js configuration that keeps every later request on a fresh `{token}/{expires}` pair.
 * `options.Hls` is the page's `Hls` class, so hls.js is bundled once (also with `hls.js/light`).
 *
 * @throws TypeError when `options.Hls` is missing (before the token is fetched).
 * @example
 * ```ts
 * import Hls from 'hls.js'
 * import { createTokenRefresh, fetchToken } from '@proj/hlsjs-token-refresh'
 * import { registerTokenRefreshWorker } from '@proj/sw-token-refresh'
 *
 * async function play(video: HTMLVideoElement) {
 *   const refresh = await createTokenRefresh({
 *     Hls,
 *     getToken: () => fetchToken('https://tokens.example.com/token?video=demo&type=vod&expire=300'),
 *     refreshLeadSeconds: 60,
 *   })
 *   if (!Hls.isSupported())
 *     return refresh.attachNative(video, { worker: registerTokenRefreshWorker() })
 *   const hls = new Hls(refresh.hlsConfig)
 *   refresh.attach(hls)
 *   hls.loadSource(refresh.url)
 *   hls.attachMedia(video)
 * }
 * play(document.querySelector('video')!)
 * ```
 */
export async function createTokenRefresh(
  options: HlsTokenRefreshOptions,
): Promise<HlsTokenRefresh> {
  const { Hls } = options
  assertHlsClass(Hls, 'createTokenRefresh')
  const base = options.hlsConfig ?? {}
  for (const name of LOADERS)
    if (base[name] !== undefined && typeof base[name] !== 'function')
      throw new TypeError(`createTokenRefresh: hlsConfig.${name} is not a class`)
  const refresher = await TokenRefresher.create(options)
  const loaders = wrapLoaders(refresher, base, Hls.DefaultConfig.loader)
  return {
    refresher,
    get url() {
      return refresher.url
    },
    hlsConfig: {
      ...base,
      ...loaders,
      ...recoveringPolicies(refresher, { ...Hls.DefaultConfig, ...base }),
    },
    attach: (hls) => {
      // its refresher is stopped: an Hls attached now would play on a token never renewed
      if (refresher.destroyed) throw new Error('this refresh has ended')
      assertOwnLoaders(hls, loaders)
      // the give-up and the outage revival: loaded with the first failure
      const stop = watchFailures(Hls, hls, refresher)
      hls.once(Hls.Events.DESTROYING, () => {
        stop()
        refresher.destroy()
      })
    },
    attachNative: async (video, native) => {
      const { protectNativePlayback } = await import('@proj/sw-token-refresh')
      return protectNativePlayback(video, refresher, native)
    },
    destroy: () => refresher.destroy(),
  }
}

/**
 * `loader` (the page's or hls.js's default) and the page's own `pLoader`/`fLoader`, each wrapped
 * by {@link tokenLoader}: hls.js prefers `pLoader` for playlists and `fLoader` for fragments, so
 * an unwrapped one would send them with whatever pair their URL carries.
 */
function wrapLoaders(
  refresher: TokenRefresher,
  base: Partial<HlsConfig>,
  defaultLoader: LoaderClass,
): Pick<HlsConfig, 'loader'> & Partial<Pick<HlsConfig, 'pLoader' | 'fLoader'>> {
  const wrapped: Pick<HlsConfig, 'loader'> & Partial<Pick<HlsConfig, 'pLoader' | 'fLoader'>> = {
    loader: tokenLoader(refresher, base.loader ?? defaultLoader),
  }
  if (base.pLoader) wrapped.pLoader = tokenLoader(refresher, base.pLoader)
  if (base.fLoader) wrapped.fLoader = tokenLoader(refresher, base.fLoader)
  return wrapped
}

/**
 * Throws when `hls` was built with a loader that is not (and does not extend) one of `ours`,
 * typically `new Hls({ ...refresh.hlsConfig, pLoader: Mine })`: its requests would bypass the
 * token and playback would stop with the first expiry, far from the cause. `hls.userConfig` is
 * what the page passed; hls.js's CMCD replaces `config.pLoader`/`fLoader` with its own wrappers
 * (around ours) in `hls.config`, which is therefore only the fallback.
 */
function assertOwnLoaders(hls: Hls, ours: Partial<Pick<HlsConfig, LoaderName>>): void {
  const given = (hls.userConfig ?? hls.config) as Partial<Pick<HlsConfig, LoaderName>>
  const builtOn = (loader: unknown, base: unknown) =>
    typeof loader === 'function' &&
    typeof base === 'function' &&
    (loader === base || loader.prototype instanceof base)
  for (const name of LOADERS) {
    const loader = given[name]
    const mine = ours[name]
    if (loader === mine) continue
    // a class extending ours (e.g. to count requests) still sends through our rewrite
    if (builtOn(loader, mine) || (name !== 'loader' && builtOn(loader, ours.loader))) continue
    throw new TypeError(
      `refresh.attach(hls): hls.config.${name} is not refresh.hlsConfig's, so it would bypass ` +
        `the token: pass yours in createTokenRefresh({ hlsConfig: { ${name} } })`,
    )
  }
}
