import {
  type EventHandler,
  endsPlayback,
  isTokenRefusal,
  type TokenRefresher,
  TokenRejectedError,
} from '@proj/token-refresh'
import type { FailureEvent } from './failure-watch.ts'

/** MediaError code MEDIA_ERR_NETWORK: the media could not be fetched. */
const MEDIA_ERR_NETWORK = 2

/** The VHS internals that can stop its loaders (present in every VHS the peer range admits). */
interface VhsLoaders {
  playlistController_?: { pauseLoading?: () => void }
}

/** The part of a video.js player the give-up uses. */
export interface FailingPlayer {
  error(error: { code: number; message: string }): unknown
  tech(safety: true): unknown
}

/**
 * Ends playback with the player's own error: `player.error()` with MEDIA_ERR_NETWORK (video.js
 * fires `error` and shows it), and VHS's loaders stopped. video.js leaves the tech alone on a
 * player error and VHS pauses only on its own errors, so without the stop a live playlist would
 * go on being reloaded (and refused) behind the error.
 *
 * @example
 * ```ts
 * failPlayback(player, new TokenRejectedError(3))
 * player.error()?.code // 2
 * ```
 */
export function failPlayback(player: FailingPlayer, error: Error): void {
  player.error({ code: MEDIA_ERR_NETWORK, message: `token refresh: ${error.message}` })
  const tech = player.tech(true) as { vhs?: VhsLoaders } | undefined
  tech?.vhs?.playlistController_?.pauseLoading?.()
}

/**
 * Makes the player fail (once) when the token backend refuses the stream (a
 * `StreamLimitError`, reported through `onError` by the refresher: at the refused refresh, the
 * buffer is not played out), and when the CDN refuses every token, also where the refresher
 * cannot tell:
 *
 * - the refresher gives up ({@link TokenRejectedError}, already reported through its `onError`):
 *   its recovery stops there, and VHS alone would exclude renditions and wait on an empty buffer
 *   without ever raising an error;
 * - VHS is handed a refusal of the current token, though that token came from a refresh made
 *   because its predecessor was refused, and no request with it succeeded: a fresh token
 *   refused, and no refresh can help. The
 *   refresher may not count it (a backend signing within the same second hands out the same
 *   token again, and a token counts once), so `onError` gets the TokenRejectedError here.
 *
 * It is told the answers to VHS's requests and the refresher's `error`, `tokenrefreshed` and
 * `cdnchange` events, each with the token of the CDN in use then (`watchFailures`, which loads
 * it with the first failure: its token is that moment's).
 *
 * @example
 * ```ts
 * const giveUp = failOnTokenRejection(player, refresher, options.onError)
 * giveUp.handle({ url, status: 403, final: true, token: refresher.token })
 * ```
 */
export function failOnTokenRejection(
  player: FailingPlayer,
  refresher: TokenRefresher,
  onError?: (error: unknown) => void,
): EventHandler<FailureEvent> {
  const carries = (url: string, token: string) => url.includes(`/${token}/`)
  let failed = false
  /** The token of the CDN in use (with several CDNs, each signs its own). */
  let token: string | undefined
  /** Distinct tokens refused in a row (the current one included once refused). */
  let refusedInARow = 0
  let currentRefused = false
  /** The current token replaced a refused one: it is fresh from a recovery refresh. */
  let freshAfterRefusal = false
  const fail = (error: Error) => {
    if (failed) return
    failed = true
    failPlayback(player, error)
  }
  const onRefresherError = (event: Event) => {
    const error = (event as CustomEvent<unknown>).detail
    if (endsPlayback(error)) fail(error)
  }
  const onRefreshed = (next: string) => {
    freshAfterRefusal = currentRefused
    if (!currentRefused) refusedInARow = 0
    // the same token handed out again stays refused
    if (next !== token) currentRefused = false
    token = next
  }
  // another CDN, another token: its refusals are counted from zero
  const onCdnChange = (next: string) => {
    token = next
    refusedInARow = 0
    currentRefused = false
    freshAfterRefusal = false
  }
  const observe = (url: string, status: number, final: boolean) => {
    if (failed || refresher.rejected || !token || !carries(url, token)) return
    // a 410 is the CDN's "expired": a clock behind the CDN's, not a CDN that refuses the secret
    if (!isTokenRefusal(status) || status === 410) {
      // the CDN takes this token: whatever was refused before was not about the secret
      if (status >= 200 && status < 300) {
        freshAfterRefusal = false
        refusedInARow = 0
      }
      return
    }
    if (!currentRefused) refusedInARow++
    currentRefused = true
    if (!final || !freshAfterRefusal || refresher.expired) return
    const error = new TokenRejectedError(refusedInARow)
    onError?.(error)
    fail(error)
  }
  return {
    handle(news) {
      // before the first event it hears, nothing changed here but the token
      token ??= news.token
      if (!('refresherEvent' in news)) return observe(news.url, news.status, news.final)
      const { type } = news.refresherEvent
      if (type === 'error') onRefresherError(news.refresherEvent)
      else if (type === 'tokenrefreshed') onRefreshed(news.token)
      else onCdnChange(news.token)
    },
    stop() {
      failed = true // stopped: it fails nothing more
    },
  }
}
