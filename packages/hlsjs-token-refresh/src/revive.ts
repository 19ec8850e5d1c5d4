import type { TokenRefresher } from '@proj/token-refresh'
import Hls, { type ErrorData } from 'hls.js'

/**
 * Brings hls.js back after a token outage: hls.js raises a fatal network error once its retries
 * run out (e.g. `levelLoadError` on a 410 while the backend was down) and then loads nothing
 * more. When a new token arrives after such an error, loading restarts with it: `startLoad` at
 * the current position (VOD) or the live edge, or the manifest again if it never loaded. Once per
 * new token, and never after the CDN refused every token. Returns the function that stops it.
 *
 * @example
 * ```ts
 * const stop = reviveAfterOutage(hls, refresh.refresher)
 * ```
 */
export const reviveAfterOutage = (hls: Hls, refresher: TokenRefresher): (() => void) => {
  let gaveUp = false
  const onError = (_: unknown, data: ErrorData) => {
    if (data.fatal && data.type === Hls.ErrorTypes.NETWORK_ERROR) gaveUp = true
  }
  const onRefreshed = () => {
    if (!gaveUp || refresher.rejected) return
    gaveUp = false
    const media = hls.media
    if (hls.levels.length === 0) hls.loadSource(refresher.url)
    else hls.startLoad(hls.liveSyncPosition !== null ? -1 : (media?.currentTime ?? -1))
    if (media?.paused === false || media?.readyState === 0) void media.play().catch(() => undefined)
  }
  hls.on(Hls.Events.ERROR, onError)
  refresher.addEventListener('tokenrefreshed', onRefreshed)
  return () => {
    hls.off(Hls.Events.ERROR, onError)
    refresher.removeEventListener('tokenrefreshed', onRefreshed)
  }
}
