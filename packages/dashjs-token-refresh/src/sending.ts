import type { AttemptOutcome } from '@proj/token-refresh'

/**
 * What dash.js keeps in `customData.request` of each sending: its own request object (a
 * `FragmentRequest`, or the MPD's `TextRequest`), one per request and the same on every retry.
 */
export interface DashRequest {
  /** `MPD`, `InitializationSegment`, `MediaSegment`, `IndexSegment`, … (dash.js's `HTTPRequest` types). */
  type?: string
  /** A media segment's duration (s); `NaN` or absent for everything else. */
  duration?: number
}

/**
 * How long one sending of the video may take before it counts as its CDN's failure (ms), with
 * several CDNs (`firstByteMs`, the attempt's first-byte bound); `undefined` with one CDN, where
 * dash.js's own timeouts stay. dash.js measures only whole requests (its XHR's `timeout`, the
 * `CommonMediaRequest.timeout` an interceptor may set), so a media segment also gets its own
 * duration: a CDN that keeps up with playback delivers a segment within it, and a slow
 * download of a healthy CDN is dash.js's to abandon (its ABR rules), before this bound. Never
 * longer than dash.js's own timeout for the request (`ownMs`, 0: none).
 *
 * @example
 * ```ts
 * sendingTimeoutMs(3000, { type: 'MediaSegment', duration: 2 }, 20_000) // 5000
 * sendingTimeoutMs(3000, { type: 'MPD' }, 10_000) // 3000
 * sendingTimeoutMs(undefined, { type: 'MPD' }, 10_000) // undefined
 * ```
 */
export function sendingTimeoutMs(
  firstByteMs: number | undefined,
  request: DashRequest | undefined,
  ownMs: number | undefined,
): number | undefined {
  if (firstByteMs === undefined) return undefined
  const duration = request?.duration ?? 0
  const bound = firstByteMs + (Number.isFinite(duration) && duration > 0 ? duration * 1000 : 0)
  return ownMs && ownMs > 0 ? Math.min(ownMs, bound) : bound
}

/**
 * What a dash.js response says about its sending, for the attempt: the HTTP status, `'timeout'`
 * when no status came and the sending ran into its bound (`timeoutMs`, after `elapsedMs`), or
 * `0` when no status came before it (no answer, or dash.js aborted it: see
 * `request-attempts.ts`). `undefined`: a success (2xx), nothing to tell.
 *
 * @example
 * ```ts
 * responseOutcome(403, 120, 3000) // 403
 * responseOutcome(0, 3004, 3000) // 'timeout'
 * responseOutcome(206, 80, undefined) // undefined
 * ```
 */
export function responseOutcome(
  status: number | undefined,
  elapsedMs: number,
  timeoutMs: number | undefined,
): AttemptOutcome | undefined {
  const code = status ?? 0
  if (code >= 200 && code <= 299) return undefined
  if (code !== 0) return code
  return timeoutMs !== undefined && elapsedMs >= timeoutMs ? 'timeout' : 0
}
