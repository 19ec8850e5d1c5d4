// What a video.js player runs only after something went wrong, loaded on demand by
// `watchFailures` (failure-watch.ts) with the first failure: the give-up on a CDN that refuses
// every token and the revival after a token outage.
import type { EventHandler, TokenRefresher } from '@proj/token-refresh'
import type { FailureEvent } from './failure-watch.ts'
import { type FailingPlayer, failOnTokenRejection } from './give-up.ts'
import { type RevivablePlayer, type ReviveOptions, reviveAfterOutage } from './revive.ts'

/**
 * The give-up and the revival of `player`, told each event in the order they were attached in
 * before they were loaded on demand (the revival first).
 *
 * @example
 * ```ts
 * const { afterFailure } = await import('./after-failure.ts')
 * const handler = afterFailure(player, refresher, onError, { type: 'application/x-mpegURL' })
 * ```
 */
export function afterFailure(
  player: RevivablePlayer & FailingPlayer,
  refresher: TokenRefresher,
  onError: ((error: unknown) => void) | undefined,
  revive: ReviveOptions,
): EventHandler<FailureEvent> {
  const handlers = [
    reviveAfterOutage(player, refresher, revive),
    failOnTokenRejection(player, refresher, onError),
  ]
  return {
    handle: (event) => {
      for (const handler of handlers) handler.handle(event)
    },
    stop: () => {
      for (const handler of handlers) handler.stop()
    },
  }
}
