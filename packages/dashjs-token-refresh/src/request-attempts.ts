import { type CdnAttempt, isTokenRefusal, type TokenRefresher } from '@proj/token-refresh'
import type { MediaPlayerClass } from 'dashjs'
import type { DashjsModule } from './dashjs-module.ts'
import { type DashRequest, responseOutcome, sendingTimeoutMs } from './sending.ts'

/** dash.js's request interceptor (`player.addRequestInterceptor`). */
export type RequestInterceptor = Parameters<MediaPlayerClass['addRequestInterceptor']>[0]
/** dash.js's response interceptor (`player.addResponseInterceptor`). */
export type ResponseInterceptor = Parameters<MediaPlayerClass['addResponseInterceptor']>[0]
type MediaRequest = Parameters<RequestInterceptor>[0]

/** A request of the video the CDN refused (403/410): what the give-up's error names. */
export interface RefusedRequest {
  url: string
  status: number
  /** dash.js's request type (`MPD`, `MediaSegment`, …). */
  type: string | undefined
}

/** What {@link requestAttempts} installs on a dash.js player. */
export interface RequestAttempts {
  /** The request interceptor it added. */
  readonly request: RequestInterceptor
  /** The response interceptor it added. */
  readonly response: ResponseInterceptor
  /** The last request of the video the CDN refused, if any. */
  readonly lastRefused: RefusedRequest | undefined
  /**
   * From now on the video's requests wait instead of leaving (the give-up: nothing more goes
   * to a CDN that refuses every token); `player.reset()` drops them.
   */
  hold(): void
  /** Removes the interceptors and the listener. */
  detach(): void
}

/** One sending under way: its request's attempt, when it left, its bound. */
interface Sending {
  attempt: CdnAttempt
  request: DashRequest | undefined
  at: number
  timeoutMs: number | undefined
}

/** The request object dash.js keeps in a sending's `customData` (see {@link DashRequest}). */
const dashRequestOf = (request: MediaRequest): DashRequest | undefined =>
  (request.customData as { request?: DashRequest } | undefined)?.request

/**
 * dash.js's request seam as a seam of the refresher's attempts (`refresher.attempt`): each
 * request of the video (the MPD and its updates, init, index and media segments) is one
 * attempt, from its first sending to its last retry. dash.js documents request and response
 * interceptors (`addRequestInterceptor`, `addResponseInterceptor`, both awaited), and sends
 * every retry through the request interceptors again (`HTTPLoader`: `_retriggerRequest` →
 * `_internalLoad` → `_applyRequestInterceptors`), so:
 *
 * - the request interceptor puts each sending on the CDN in use with its current pair, after a
 *   due refresh (the attempt's `prepare`, bounded: a tab that slept sends no expired token) and,
 *   with several CDNs, bounds it by the attempt's first-byte bound (see `sendingTimeoutMs`);
 * - the response interceptor tells the attempt how the sending ended. dash.js then retries
 *   after its `retryIntervals` (the adapter leaves them alone), and the retry leaves as the
 *   attempt said: on the next CDN (a CDN's failure: a fresh token refused, a 5xx, no answer, the
 *   bound), with a new pair (a refused token: the core's one refresh per token), or unchanged;
 * - a sending dash.js aborted itself (a seek, an ABR switch) is no CDN's failure: its response
 *   has no status either, so a status-less answer is judged a task later, unless dash.js
 *   announced the request's abandonment (`FRAGMENT_LOADING_ABANDONED`) meanwhile.
 *
 * URLs that are not the video's (another video, a DRM licence server) pass untouched.
 *
 * @example
 * ```ts
 * const attempts = requestAttempts(refresher, player, dashjs)
 * player.initialize(video, refresher.url, true)
 * // later, without resetting the player
 * attempts.detach()
 * ```
 */
export function requestAttempts(
  refresher: TokenRefresher,
  player: MediaPlayerClass,
  dashjs: DashjsModule,
): RequestAttempts {
  /** Each request's attempt, by dash.js's request object (the same on every retry). */
  const attempts = new WeakMap<DashRequest, CdnAttempt>()
  /**
   * Sendings under way, by the `customData` dash.js makes for each: its response names the
   * CommonMediaRequest it made, which an interceptor of the page before this one may have
   * replaced by a copy (a copy shares `customData`).
   */
  const sendings = new WeakMap<object, Sending>()
  const keyOf = (sending: MediaRequest): object =>
    (sending.customData as object | undefined) ?? sending
  const abandoned = new WeakSet<object>()
  let lastRefused: RefusedRequest | undefined
  let holding = false

  const request: RequestInterceptor = async (sending) => {
    if (!refresher.owns(sending.url)) return sending
    // dash.js has no way to stop loading: a request that never leaves is what ends it, and
    // dash.js issues one request per media type at a time, so the held ones stay few
    if (holding) return new Promise<never>(() => undefined)
    const dashRequest = dashRequestOf(sending)
    let attempt = dashRequest && attempts.get(dashRequest)
    if (!attempt) {
      attempt = refresher.attempt(sending.url)
      if (dashRequest) attempts.set(dashRequest, attempt)
    }
    sending.url = await attempt.prepare()
    const timeoutMs = sendingTimeoutMs(attempt.timeoutMs, dashRequest, sending.timeout)
    if (timeoutMs !== undefined) sending.timeout = timeoutMs
    sendings.set(keyOf(sending), {
      attempt,
      request: dashRequest,
      at: performance.now(),
      timeoutMs,
    })
    return sending
  }

  const response: ResponseInterceptor = async (answer) => {
    const key = keyOf(answer.request)
    const sending = sendings.get(key)
    if (!sending) return answer
    sendings.delete(key)
    const { attempt, request: dashRequest, at, timeoutMs } = sending
    const outcome = responseOutcome(answer.status, performance.now() - at, timeoutMs)
    if (outcome === undefined) attempt.end()
    else if (outcome !== 0) {
      if (typeof outcome === 'number' && isTokenRefusal(outcome))
        lastRefused = { url: attempt.url, status: outcome, type: dashRequest?.type }
      attempt.failed(outcome)
    } else
      setTimeout(() => {
        if (dashRequest && abandoned.has(dashRequest)) attempt.end()
        else attempt.failed(0)
      }, 0)
    return answer
  }

  const onAbandoned = (event: { request?: object }) => {
    if (event.request) abandoned.add(event.request)
  }
  player.addRequestInterceptor(request)
  player.addResponseInterceptor(response)
  player.on(dashjs.MediaPlayer.events.FRAGMENT_LOADING_ABANDONED, onAbandoned)
  return {
    request,
    response,
    get lastRefused() {
      return lastRefused
    },
    hold() {
      holding = true
    },
    detach() {
      player.removeRequestInterceptor(request)
      player.removeResponseInterceptor(response)
      player.off(dashjs.MediaPlayer.events.FRAGMENT_LOADING_ABANDONED, onAbandoned)
    },
  }
}
