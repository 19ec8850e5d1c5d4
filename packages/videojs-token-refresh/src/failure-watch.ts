import { eventsOnDemand, isTokenRefusal, type TokenRefresher } from '@proj/token-refresh'
import type { FailingPlayer } from './give-up.ts'
import type { RevivablePlayer, ReviveOptions } from './revive.ts'
import type { ResponseObserver } from './vhs-hooks.ts'

/**
 * What the code after a failure hears, with what was true then (it may hear of it later, once
 * its module is in): an answer to one of VHS's requests, or an `error`, `tokenrefreshed` or
 * `cdnchange` event of the refresher with whether the token had expired. Each carries the
 * token of the CDN in use at that moment.
 */
export type FailureEvent = { token: string } & (
  | { url: string; status: number; final: boolean }
  | { refresherEvent: Event; expired: boolean }
)

/** What {@link watchFailures} returns. */
export interface FailureWatch {
  /** For {@link installVhsHooks}: the answers to VHS's requests. */
  observe: ResponseObserver
  /** Stops watching. */
  stop(): void
}

/** The refresher's events the code after a failure hears. */
const EVENTS = ['error', 'tokenrefreshed', 'cdnchange']

/**
 * Watches `refresher` and the answers to VHS's requests for what runs only after something went
 * wrong: a CDN that refuses every token (`give-up.ts`) and a token outage (`revive.ts`), in a
 * module loaded on demand (`after-failure.ts`), so a player that plays without trouble never
 * downloads it. The first failure starts the import (a refused request, a failed refresh:
 * before one, those modules would do nothing); from then on every event is kept until the
 * module is in and handed to it in order. A failed import is tried again with the next event.
 * Nothing here waits on it: the hooks' recovery runs without it.
 *
 * @example
 * ```ts
 * const watch = watchFailures(player, refresher, options.onError, { type: 'application/x-mpegURL' })
 * installVhsHooks(vhs.xhr, () => refresher, watch.observe)
 * ```
 */
export function watchFailures(
  player: RevivablePlayer & FailingPlayer,
  refresher: TokenRefresher,
  onError: ((error: unknown) => void) | undefined,
  revive: ReviveOptions,
): FailureWatch {
  const events = eventsOnDemand<FailureEvent>(() =>
    import('./after-failure.ts').then(({ afterFailure }) =>
      afterFailure(player, refresher, onError, revive),
    ),
  )
  const onRefresher = (refresherEvent: Event) =>
    events(
      { refresherEvent, expired: refresher.expired, token: refresher.token },
      refresherEvent.type === 'error',
    )
  for (const type of EVENTS) refresher.addEventListener(type, onRefresher)
  return {
    observe: (url, status, final) =>
      events({ url, status, final, token: refresher.token }, isTokenRefusal(status)),
    stop() {
      events.stop()
      for (const type of EVENTS) refresher.removeEventListener(type, onRefresher)
    },
  }
}
