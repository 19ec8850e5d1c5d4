import { TokenRefresher, type TokenRefreshOptions } from '@proj/token-refresh'
import type shaka from 'shaka-player'
import { shakaClockSync } from './clock-sync.ts'
import { engineAttempts } from './engine-attempts.ts'
import { stopOnTokenRejection } from './give-up.ts'
import { tokenRequestFilter } from './request-filter.ts'
import { recoveringRetryParameters } from './retry-recovery.ts'

/** What {@link createTokenRefresh} gives a Shaka page. */
export interface ShakaTokenRefresh {
  /** The core: current record, `refreshCount`, `tokenrefreshed`/`error` events. */
  readonly refresher: TokenRefresher
  /** The master playlist to `player.load()` (`url`, or `url_ip` when `ipBound`). */
  readonly url: string
  /**
   * Makes `player`'s NetworkingEngine a seam of the refresher's attempts (`engineAttempts`: the
   * request filter, the 403/410 recovery and, with several CDNs, the failover), makes room for
   * the recovery in its retry parameters, and keeps a live presentation on the server's time
   * when the viewer's clock jumps; `player.destroy()` then also stops the refresh.
   * Call before `player.load(refresh.url)`.
   *
   * @throws Error once the refresh has ended (`player.destroy()` of an attached player,
   * `destroy()`): a player attached then would play on a token never renewed.
   */
  attach(player: shaka.Player): void
  /** Unregisters from every attached player and stops every timer and listener. */
  destroy(): void
}

/**
 * Fetches the first token (before the player loads anything) and returns what keeps a Shaka
 * Player's every request on a fresh `{token}/{expires}` pair.
 *
 * @example
 * ```ts
 * import shaka from 'shaka-player'
 * import { createTokenRefresh, fetchToken } from '@proj/shaka-token-refresh'
 *
 * const refresh = await createTokenRefresh({
 *   getToken: () => fetchToken('https://tokens.example.com/token?video=demo&type=vod&expire=300'),
 *   refreshLeadSeconds: 60,
 * })
 * const player = new shaka.Player()
 * await player.attach(document.querySelector('video')!)
 * refresh.attach(player)
 * await player.load(refresh.url)
 * ```
 */
export async function createTokenRefresh(options: TokenRefreshOptions): Promise<ShakaTokenRefresh> {
  const refresher = await TokenRefresher.create(options)
  const requestFilter = tokenRequestFilter(refresher)
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
      if (refresher.destroyed) throw new Error('this refresh has ended')
      const engine = player.getNetworkingEngine()
      if (!engine)
        throw new Error('token refresh: this Shaka player has no networking engine (destroyed?)')
      const attempts = engineAttempts(refresher, engine)
      const clock = shakaClockSync(player, refresher)
      engine.registerRequestFilter(clock.onRequest)
      engine.registerRequestFilter(requestFilter)
      engine.addEventListener('retry', attempts.onRetry)
      player.configure(recoveringRetryParameters(player.getConfiguration()))
      // a CDN that refuses every token: Shaka's fatal error, not endless live retries
      const stopGiveUp = stopOnTokenRejection(player, refresher)
      // Shaka announces no destruction: its destroy() is wrapped on this instance instead.
      const playerDestroy = player.destroy.bind(player)
      Object.assign(player, {
        destroy: () => {
          destroy()
          return playerDestroy()
        },
      })
      detachers.push(() => {
        stopGiveUp()
        clock.detach()
        engine.unregisterRequestFilter(clock.onRequest)
        engine.unregisterRequestFilter(requestFilter)
        engine.removeEventListener('retry', attempts.onRetry)
        attempts.detach()
      })
    },
    destroy,
  }
}
