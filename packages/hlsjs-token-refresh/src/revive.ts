import type { EventHandler, TokenRefresher } from '@proj/token-refresh'
import type { ErrorData, default as Hls } from 'hls.js'
import type { FailureEvent } from './failure-watch.ts'
import type { HlsClass } from './hls-class.ts'

/** Options of {@link outageRevival}. */
export interface ReviveOptions {
  /** How long playback may stand still after the new token before loading restarts (ms). */
  checkAfterMs?: number
  timers?: { set(callback: () => void, ms: number): unknown }
}

/**
 * Brings hls.js back after a token outage (the backend down longer than a token's life). Two
 * ways hls.js stops: it raises a fatal network error once its retries run out (e.g.
 * `levelLoadError` on a 410), or, on live, it stays idle with the element at the end of its
 * buffer, behind a window that slid on meanwhile (seen in the long-outage spec: IDLE, nothing
 * requested, no error). Loading restarts with a valid token: after a fatal error at once when
 * the token is already valid (hls.js gave up just after a refresh), else when the next token
 * arrives; after an outage without one, when playback still stands `checkAfterMs` after the new
 * token. `startLoad` at the current position (VOD), or at the live edge with the element moved
 * there (live), or the manifest again if it never loaded. Once per token, never after the CDN
 * refused every token. `Hls` is the page's class (its event and error names). It is told
 * hls.js's errors and the refresher's `error` and `tokenrefreshed` events (`watchFailures`, which
 * loads it with the first failure).
 *
 * @example
 * ```ts
 * const revival = outageRevival(Hls, hls, refresh.refresher)
 * hls.on(Hls.Events.ERROR, (_, data) => revival.handle(data))
 * ```
 */
export function outageRevival(
  { Events, ErrorTypes }: HlsClass,
  hls: Hls,
  refresher: TokenRefresher,
  {
    checkAfterMs = 2000,
    timers = { set: (callback, ms) => setTimeout(callback, ms) },
  }: ReviveOptions = {},
): EventHandler<FailureEvent> {
  let gaveUp = false
  let outage = false
  let stopped = false
  // the URL of the last revival: at most one per token, so a CDN that is down (not a token
  // problem) is retried once per refresh, not in a loop
  let revivedWith: string | undefined
  const revive = () => {
    if (stopped || refresher.rejected || refresher.url === revivedWith) return
    gaveUp = false
    revivedWith = refresher.url
    const media = hls.media
    if (hls.levels.length === 0) hls.loadSource(refresher.url)
    else if (hls.liveSyncPosition !== null) {
      hls.startLoad(-1)
      // once the fresh playlist is in, an element behind the window plays from the live edge
      hls.once(Events.LEVEL_UPDATED, (_, { details }) => {
        const sync = hls.liveSyncPosition
        if (media && sync !== null && media.currentTime < details.fragmentStart)
          media.currentTime = sync
      })
    } else hls.startLoad(media?.currentTime ?? -1)
    if (media?.paused === false || media?.readyState === 0) void media.play().catch(() => undefined)
  }
  const onError = (data: ErrorData) => {
    if (!data.fatal || data.type !== ErrorTypes.NETWORK_ERROR) return
    gaveUp = true
    // hls.js may give up just after the token came back (its last retry still carried the old
    // pair): the valid token is already here, and the next refresh is a token lifetime away
    if (!refresher.expired) revive()
  }
  // a failed refresh while the token is expired: media requests cannot succeed until a new one
  const onRefreshFailed = (expired: boolean) => {
    if (expired) outage = true
  }
  const onRefreshed = () => {
    if (gaveUp) return revive()
    if (!outage) return
    outage = false
    const media = hls.media
    const before = media?.currentTime
    timers.set(() => {
      const stuck = media && !media.paused && !media.ended && media.currentTime === before
      if (stuck) revive()
    }, checkAfterMs)
  }
  return {
    handle(news) {
      if (!('refresherEvent' in news)) onError(news)
      else if (news.refresherEvent.type === 'error') onRefreshFailed(news.expired)
      else onRefreshed()
    },
    stop() {
      stopped = true
    },
  }
}
