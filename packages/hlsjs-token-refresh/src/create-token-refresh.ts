import type { NativeProtection, NativeProtectionOptions } from '@proj/sw-token-refresh'
import { TokenRefresher, type TokenRefreshOptions } from '@proj/token-refresh'
import type { HlsConfig } from 'hls.js'
import Hls from 'hls.js'
import { recoveringPolicies } from './retry-policy.ts'
import { reviveAfterOutage } from './revive.ts'
import { tokenLoader } from './token-loader.ts'

/** What {@link createTokenRefresh} gives an hls.js page. */
export interface HlsTokenRefresh {
  /** The core: current record, `refreshCount`, `tokenrefreshed`/`error` events. */
  readonly refresher: TokenRefresher
  /** The master playlist to `loadSource` (`url`, or `url_ip` when `ipBound`). */
  readonly url: string
  /** `loader` plus the recovering load policies; spread your own options after it. */
  readonly hlsConfig: Partial<HlsConfig>
  /**
   * Ties the refresh to `hls`: a fatal network error is undone when the next token arrives
   * (an outage longer than a token's life), and `hls.destroy()` stops every timer and listener.
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
 *
 * @example
 * ```ts
 * import Hls from 'hls.js'
 * import { createTokenRefresh, fetchToken } from '@proj/hlsjs-token-refresh'
 * import { registerTokenRefreshWorker } from '@proj/sw-token-refresh'
 *
 * const refresh = await createTokenRefresh({
 *   getToken: () => fetchToken('https://tokens.example.com/token?video=demo&type=vod&expire=300'),
 *   refreshLeadSeconds: 60,
 * })
 * const video = document.querySelector('video')!
 * if (Hls.isSupported()) {
 *   const hls = new Hls(refresh.hlsConfig)
 *   refresh.attach(hls)
 *   hls.loadSource(refresh.url)
 *   hls.attachMedia(video)
 * } else await refresh.attachNative(video, { worker: registerTokenRefreshWorker() })
 * ```
 */
export async function createTokenRefresh(
  options: TokenRefreshOptions & { hlsConfig?: Partial<HlsConfig> },
): Promise<HlsTokenRefresh> {
  const refresher = await TokenRefresher.create(options)
  const base = options.hlsConfig ?? {}
  return {
    refresher,
    get url() {
      return refresher.url
    },
    hlsConfig: {
      ...base,
      loader: tokenLoader(refresher, base.loader as never),
      ...recoveringPolicies(refresher, base),
    },
    attach: (hls) => {
      const stop = reviveAfterOutage(hls, refresher)
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
