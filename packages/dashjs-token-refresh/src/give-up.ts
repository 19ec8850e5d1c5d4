import {
  endsPlayback,
  type StreamLimitError,
  type TokenRefresher,
  TokenRejectedError,
} from '@proj/token-refresh'
import type { MediaPlayerClass } from 'dashjs'
import type { DashjsModule } from './dashjs-module.ts'
import type { RequestAttempts } from './request-attempts.ts'

/** dash.js's `trigger` (the MediaPlayer's, missing from its type declarations). */
type TriggeringPlayer = Pick<MediaPlayerClass, 'on'> & {
  trigger(type: string, payload?: object): void
}

/** The `error` of the ERROR event the give-up raises: dash.js's own shape (a `DashJSError`). */
export interface TokenRejectedDashError {
  /** `DOWNLOAD_ERROR_ID_MANIFEST_CODE`, `…_INITIALIZATION_CODE` or `…_CONTENT_CODE`: what was refused last. */
  code: number
  message: string
  data: {
    /** The refresher's error: the CDN refused every fresh token, or the backend the stream. */
    cause: TokenRejectedError | StreamLimitError
    /** The last request of the video the CDN refused, and its status (a CDN's refusal only). */
    url?: string
    status?: number
  }
}

/**
 * Ends playback with dash.js's own `error` event once `refresher` gives up, on a CDN that
 * refuses every token ({@link TokenRejectedError}) or on the token backend's refusal of the
 * stream (a `StreamLimitError`, at the refused refresh), both reported through `onError` by the
 * refresher: the event's `error` is a dash.js error (`code`, `message`, `data`) whose code is
 * the download error of the last refused request (`DOWNLOAD_ERROR_ID_MANIFEST_CODE` for the MPD,
 * `…_INITIALIZATION_CODE`, else `…_CONTENT_CODE`, also for a refused stream) and whose
 * `data.cause` is the refresher's error. From then on the video's requests are held (`attempts.hold()`): dash.js
 * would otherwise retry refused segments and reload a live MPD forever, each refused again. What
 * is buffered plays out; `player.reset()` ends it. `dashjs` is the page's module (the event and
 * error names). Returns the function that stops watching.
 *
 * @example
 * ```ts
 * const stop = failOnTokenRejection(dashjs, player, refresher, attempts)
 * player.on(dashjs.MediaPlayer.events.ERROR, (event) => console.error(event))
 * ```
 */
export function failOnTokenRejection(
  dashjs: DashjsModule,
  player: MediaPlayerClass,
  refresher: TokenRefresher,
  attempts: RequestAttempts,
): () => void {
  const { events, errors } = dashjs.MediaPlayer
  let failed = false
  const codeOf = (type: string | undefined) =>
    type === 'MPD'
      ? errors.DOWNLOAD_ERROR_ID_MANIFEST_CODE
      : type === 'InitializationSegment'
        ? errors.DOWNLOAD_ERROR_ID_INITIALIZATION_CODE
        : errors.DOWNLOAD_ERROR_ID_CONTENT_CODE
  const onRefresherError = (event: Event) => {
    const cause = (event as CustomEvent<unknown>).detail
    if (failed || !endsPlayback(cause)) return
    failed = true
    attempts.hold()
    // a refused stream is no CDN's refusal: the last one seen says nothing about it
    const refused = cause instanceof TokenRejectedError ? attempts.lastRefused : undefined
    const error: TokenRejectedDashError = {
      code: codeOf(refused?.type),
      message: cause.message,
      data: { cause, ...(refused && { url: refused.url, status: refused.status }) },
    }
    // the give-up comes from inside dash.js's response interceptors: raised once they are done
    queueMicrotask(() => (player as unknown as TriggeringPlayer).trigger(events.ERROR, { error }))
  }
  refresher.addEventListener('error', onRefresherError)
  return () => refresher.removeEventListener('error', onRefresherError)
}
