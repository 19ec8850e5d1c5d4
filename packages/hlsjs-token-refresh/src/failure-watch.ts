import { eventsOnDemand, isTokenRefusal, type TokenRefresher } from '@proj/token-refresh'
import type { ErrorData, default as Hls } from 'hls.js'
import type { HlsClass } from './hls-class.ts'
import type { ReviveOptions } from './revive.ts'

/**
 * What the code after a failure hears: an error of hls.js, or an `error` or `tokenrefreshed`
 * event of the refresher with whether the token had expired then (the handler may hear of it
 * later, once its module is in).
 */
export type FailureEvent = ErrorData | { refresherEvent: Event; expired: boolean }

/**
 * Watches `hls` and `refresher` for what runs only after something went wrong: a CDN that
 * refuses every token (`give-up.ts`) and a token outage (`revive.ts`), both in a module loaded
 * on demand (`after-failure.ts`), so a page that plays without trouble never downloads it. The
 * first failure starts the import (a fatal error of hls.js, a refused request, a failed
 * refresh: before one, those modules would do nothing); from then on every event is kept until
 * the module is in and handed to it in order, so it acts as if it had been loaded from the
 * start. A failed import is tried again with the next event. Nothing here waits on it: hls.js's
 * own retries and the refresher's recovery run without it. Returns the function that stops
 * watching.
 *
 * @example
 * ```ts
 * const stop = watchFailures(Hls, hls, refresher)
 * hls.once(Hls.Events.DESTROYING, stop)
 * ```
 */
export function watchFailures(
  Hls: HlsClass,
  hls: Hls,
  refresher: TokenRefresher,
  revive?: ReviveOptions,
): () => void {
  const events = eventsOnDemand<FailureEvent>(() =>
    import('./after-failure.ts').then(({ afterFailure }) =>
      afterFailure(Hls, hls, refresher, revive),
    ),
  )
  const onHlsError = (_: unknown, data: ErrorData) =>
    events(data, data.fatal || isTokenRefusal(data.response?.code))
  const onRefresher = (event: Event) =>
    events({ refresherEvent: event, expired: refresher.expired }, event.type === 'error')
  hls.on(Hls.Events.ERROR, onHlsError)
  refresher.addEventListener('error', onRefresher)
  refresher.addEventListener('tokenrefreshed', onRefresher)
  return () => {
    events.stop()
    hls.off(Hls.Events.ERROR, onHlsError)
    refresher.removeEventListener('error', onRefresher)
    refresher.removeEventListener('tokenrefreshed', onRefresher)
  }
}
