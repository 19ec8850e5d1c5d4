import {
  type EventHandler,
  endsPlayback,
  isStreamRefusal,
  isTokenRefusal,
  type StreamLimitError,
  type TokenRefresher,
  type TokenRejectedError,
} from '@proj/token-refresh'
import type { ErrorData, default as Hls } from 'hls.js'
import type { FailureEvent } from './failure-watch.ts'
import type { HlsClass } from './hls-class.ts'

/**
 * Ends playback with hls.js's own fatal error once `refresher` gives up: on a CDN that refuses
 * every token ({@link TokenRejectedError}), or on the token backend's refusal of the stream
 * ({@link StreamLimitError}), both reported through `onError` by the refresher. Loading stops
 * (`hls.stopLoad()`) and a fatal `NETWORK_ERROR` is raised, with the error as `error`: for a CDN,
 * the details and response of the last refused request of this video (`fragLoadError` when none
 * was seen); for a refused stream `fragLoadError`, at once (what is buffered still plays). Without it hls.js goes on: with no alternate rendition it retries a refused
 * fragment up to its `maxNumRetry` (6 by default, about 30 s) whatever the retry policy says.
 * Nothing is raised when hls.js already failed on that refusal itself. `Hls` is the page's class
 * (its event and error names). It is told hls.js's errors and the refresher's `error` events
 * (`watchFailures`, which loads it with the first failure).
 *
 * @example
 * ```ts
 * const giveUp = failOnTokenRejection(Hls, hls, refresh.refresher)
 * hls.on(Hls.Events.ERROR, (_, data) => giveUp.handle(data))
 * refresher.addEventListener('error', (event) => giveUp.handle({ refresherEvent: event, expired: refresher.expired }))
 * ```
 */
export function failOnTokenRejection(
  { Events, ErrorTypes, ErrorDetails }: HlsClass,
  hls: Hls,
  refresher: TokenRefresher,
): EventHandler<FailureEvent> {
  let stopped = false
  let failed = false
  /** The last error of hls.js for a refused request of this video (the same object it goes on to handle). */
  let refused: ErrorData | undefined
  const onHlsError = (data: ErrorData) => {
    const url = data.response?.url
    if (isTokenRefusal(data.response?.code) && url && refresher.owns(url)) refused = data
  }
  const fail = (error: TokenRejectedError | StreamLimitError) => {
    if (stopped || failed) return
    failed = true
    // a refused stream is no CDN's refusal: the last one seen says nothing about it
    const last = isStreamRefusal(error) ? undefined : refused
    // hls.js made this very refusal fatal by itself (a manifest, or a playlist with no
    // alternate): it stopped loading, and a second fatal error would only repeat it
    if (last?.fatal) return
    hls.stopLoad()
    hls.trigger(Events.ERROR, {
      type: ErrorTypes.NETWORK_ERROR,
      details: last?.details ?? ErrorDetails.FRAG_LOAD_ERROR,
      fatal: true,
      error,
      ...(last?.response && { response: last.response }),
    })
  }
  const onRefresherError = (event: Event) => {
    const error = (event as CustomEvent<unknown>).detail
    if (!endsPlayback(error)) return
    // The refresher gives up inside hls.js's handling of a refused request (its retry policy
    // asks `recover`): fail once that handling is over, so hls.js does not schedule its retry
    // after the stop, and its own verdict on the request (fatal or not) is known.
    queueMicrotask(() => fail(error))
  }
  return {
    handle(news) {
      if (!('refresherEvent' in news)) onHlsError(news)
      else if (news.refresherEvent.type === 'error') onRefresherError(news.refresherEvent)
    },
    stop() {
      stopped = true
    },
  }
}
