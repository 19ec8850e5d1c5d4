import { TokenRefresher, type TokenRefreshOptions } from '@proj/token-refresh'
import type { MediaPlayerClass } from 'dashjs'
import { assertDashjs, type DashjsModule } from './dashjs-module.ts'
import { failOnTokenRejection } from './give-up.ts'
import { requestAttempts } from './request-attempts.ts'
import { recoveringRetrySettings } from './retry-settings.ts'

/** The options of {@link createTokenRefresh}: the core's, plus the page's `dashjs` module. */
export interface DashjsTokenRefreshOptions extends TokenRefreshOptions {
  /**
   * The page's `dashjs` module (`import * as dashjs from 'dashjs'`, or the script tag's global).
   * Required: this package never imports dash.js itself, so the page bundles it once.
   */
  dashjs: DashjsModule
}

/** What {@link createTokenRefresh} gives a dash.js page. */
export interface DashjsTokenRefresh {
  /** The core: current record, `refreshCount`, `tokenrefreshed`/`error`/`cdnchange` events. */
  readonly refresher: TokenRefresher
  /** The MPD to play (`url`, or `url_ip` when `ipBound`; a record asked with `format=dash`). */
  readonly url: string
  /**
   * Makes `player`'s requests the refresher's attempts (its request and response interceptors:
   * the current pair on every sending and retry, the 403/410 recovery, with several CDNs the
   * failover), makes room for the recovery in its `retryAttempts`, and ends playback with
   * dash.js's own `error` event when the CDN refuses every fresh token. `player.reset()` and
   * `player.destroy()` then also stop the refresh. Call before `player.initialize(video, refresh.url)`.
   *
   * @throws Error once the refresh has ended (`reset()`/`destroy()` of an attached player, or
   * its own `destroy()`): the next playback needs a new `createTokenRefresh`.
   */
  attach(player: MediaPlayerClass): void
  /** Removes the interceptors from every attached player and stops every timer and listener. */
  destroy(): void
}

/**
 * Fetches the first token (before the player loads anything, as spec 4.15 asks) and returns
 * what keeps every request of a dash.js player (the MPD and its updates, init and media
 * segments) on a fresh `{token}/{expires}` pair. `options.dashjs` is the page's module, so
 * dash.js is bundled once.
 *
 * @throws TypeError when `options.dashjs` is missing (before the token is fetched).
 * @example
 * ```ts
 * import * as dashjs from 'dashjs'
 * import { createTokenRefresh, fetchToken } from '@proj/dashjs-token-refresh'
 *
 * async function play(video: HTMLVideoElement) {
 *   const refresh = await createTokenRefresh({
 *     dashjs,
 *     getToken: () =>
 *       fetchToken('https://tokens.example.com/token?video=demo&type=vod&expire=300&format=dash'),
 *     refreshLeadSeconds: 60,
 *   })
 *   const player = dashjs.MediaPlayer().create()
 *   refresh.attach(player) // player.reset() stops the refresh too
 *   player.initialize(video, refresh.url, true)
 * }
 * play(document.querySelector('video')!)
 * ```
 */
export async function createTokenRefresh(
  options: DashjsTokenRefreshOptions,
): Promise<DashjsTokenRefresh> {
  const { dashjs } = options
  assertDashjs(dashjs, 'createTokenRefresh')
  const refresher = await TokenRefresher.create(options)
  const detachers: (() => void)[] = []
  const destroy = () => {
    for (const detach of detachers.splice(0)) detach()
    refresher.destroy()
  }
  return {
    refresher,
    get url() {
      return refresher.url
    },
    attach(player) {
      // its refresher is stopped: a player attached now would play on a token never renewed
      if (refresher.destroyed) throw new Error('this refresh has ended')
      const attempts = requestAttempts(refresher, player, dashjs)
      player.updateSettings(recoveringRetrySettings(player.getSettings()))
      const stopGiveUp = failOnTokenRejection(dashjs, player, refresher, attempts)
      // dash.js announces no reset: both are wrapped on this instance (destroy() resets through
      // an inner function, not this property)
      const { reset, destroy: playerDestroy } = player
      const wrapped = {
        reset: () => {
          destroy()
          reset.call(player)
        },
        destroy: () => {
          destroy()
          playerDestroy.call(player)
        },
      }
      Object.assign(player, wrapped)
      detachers.push(() => {
        stopGiveUp()
        attempts.detach()
        // A refresh attached later wrapped ours: its wrappers stay (they call ours, a
        // pass-through now); put back, the player's own would drop that refresh's teardown.
        if (player.reset === wrapped.reset) Object.assign(player, { reset, destroy: playerDestroy })
      })
    },
    destroy,
  }
}
