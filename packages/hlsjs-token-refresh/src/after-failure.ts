// What an hls.js page runs only after something went wrong, loaded on demand by `watchFailures`
// (failure-watch.ts) with the first failure: the give-up on a CDN that refuses every token and
// the revival after a token outage.
import type { EventHandler, TokenRefresher } from '@proj/token-refresh'
import type Hls from 'hls.js'
import type { FailureEvent } from './failure-watch.ts'
import { failOnTokenRejection } from './give-up.ts'
import type { HlsClass } from './hls-class.ts'
import { outageRevival, type ReviveOptions } from './revive.ts'

/**
 * The give-up and the revival of `hls`, told each event in the order they were attached in
 * before they were loaded on demand (the give-up first).
 *
 * @example
 * ```ts
 * const { afterFailure } = await import('./after-failure.ts')
 * const handler = afterFailure(Hls, hls, refresher)
 * handler.handle(errorData)
 * ```
 */
export function afterFailure(
  Hls: HlsClass,
  hls: Hls,
  refresher: TokenRefresher,
  revive?: ReviveOptions,
): EventHandler<FailureEvent> {
  const handlers = [
    failOnTokenRejection(Hls, hls, refresher),
    outageRevival(Hls, hls, refresher, revive),
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
