import { onDemand, type TokenRefresher } from '@proj/token-refresh'
import type shaka from 'shaka-player'
import type { ShakaClockSync } from './live-clock.ts'

export type { ShakaClockSync } from './live-clock.ts'

/**
 * Keeps a live Shaka presentation on the server's time when the viewer's clock changes during
 * playback (see `live-clock.ts`: Shaka places the live edge with `Date.now()`, the refresher
 * knows the server's clock). A VOD presentation has no live edge: the correction is a module of
 * its own, loaded when a live presentation has loaded (Shaka's `loaded` event), so a VOD page
 * never downloads it. A failed import is tried again with the next request or load.
 *
 * @example
 * ```ts
 * const clock = shakaClockSync(player, refresher)
 * player.getNetworkingEngine()?.registerRequestFilter(clock.onRequest)
 * ```
 */
export function shakaClockSync(player: shaka.Player, refresher: TokenRefresher): ShakaClockSync {
  const module = onDemand(() => import('./live-clock.ts'))
  let clock: ShakaClockSync | undefined
  let detached = false
  const start = () => {
    if (clock || detached || !player.isLive()) return
    module().then(
      ({ liveClock }) => {
        if (!clock && !detached) clock = liveClock(player, refresher)
      },
      () => undefined,
    )
  }
  player.addEventListener('loaded', start)
  return {
    onRequest: () => (clock ? clock.onRequest() : start()),
    detach() {
      detached = true
      clock?.detach()
      player.removeEventListener('loaded', start)
    },
  }
}
