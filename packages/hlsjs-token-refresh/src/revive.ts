import type { TokenRefresher } from '@proj/token-refresh'
import Hls, { type ErrorData } from 'hls.js'

/**
 * Brings hls.js back after a token outage: hls.js raises a fatal network error once its retries
 * run out (e.g. `levelLoadError` on a 410 while the backend was down) and then loads nothing
 * more. Loading restarts with a valid token: at once when the error comes while the current token
 * is valid (hls.js gave up just after a refresh), else when the next token arrives; `startLoad`
 * at the current position (VOD) or the live edge, or the manifest again if it never loaded. Once
 * per token, and never after the CDN refused every token. Returns the function that stops it.
 *
 * @example
 * ```ts
 * const stop = reviveAfterOutage(hls, refresh.refresher)
 * ```
 */
export const reviveAfterOutage = (hls: Hls, refresher: TokenRefresher): (() => void) => {
  let gaveUp = false
  // the URL of the last revival: at most one per token, so a CDN that is down (not a token
  // problem) is retried once per refresh, not in a loop
  let revivedWith: string | undefined
  const revive = () => {
    if (!gaveUp || refresher.rejected || refresher.url === revivedWith) return
    gaveUp = false
    revivedWith = refresher.url
    const media = hls.media
    if (hls.levels.length === 0) hls.loadSource(refresher.url)
    else hls.startLoad(hls.liveSyncPosition !== null ? -1 : (media?.currentTime ?? -1))
    if (media?.paused === false || media?.readyState === 0) void media.play().catch(() => undefined)
  }
  const onError = (_: unknown, data: ErrorData) => {
    if (!data.fatal || data.type !== Hls.ErrorTypes.NETWORK_ERROR) return
    gaveUp = true
    // hls.js may give up just after the token came back (its last retry still carried the old
    // pair): then the valid token is already here, and waiting for the next refresh would leave
    // playback stopped for a whole token lifetime
    if (!refresher.expired) revive()
  }
  hls.on(Hls.Events.ERROR, onError)
  refresher.addEventListener('tokenrefreshed', revive)
  return () => {
    hls.off(Hls.Events.ERROR, onError)
    refresher.removeEventListener('tokenrefreshed', revive)
  }
}
