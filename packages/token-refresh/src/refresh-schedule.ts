/**
 * The refresh timer's arithmetic, as pure functions of the moment and the settings: when the
 * next refresh is planned, how soon one may start, how long a failed one waits. The refresher
 * only feeds them its state; they are tested alone (`refresh-schedule.test.ts`).
 */
import {
  DEMAND_WINDOW_MS,
  MAX_RETRY_AFTER_MS,
  MIN_REFRESH_INTERVAL_MS,
  type RetryPolicy,
} from './refresh-settings.ts'

/** `setTimeout` overflows above 2^31-1 ms and fires at once; longer waits re-arm instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * The timer's refresh moment, uniform in a window that ends at `staleAt` (the lead time): the
 * spread before it, or for the first cycle everything from half the spread after `now` (the
 * steady period's length, so the first cycle of a herd is as flat as later ones).
 *
 * @example
 * ```ts
 * planRefreshAt(60_000, 0, 10_000, false, () => 0.5) // 55_000: staleAt, now, spread, first cycle, random
 * ```
 */
export function planRefreshAt(
  staleAt: number,
  now: number,
  spreadMs: number,
  firstCycle: boolean,
  random: () => number,
): number {
  if (!(spreadMs > 0)) return staleAt
  const start = firstCycle ? now + spreadMs / 2 : staleAt - spreadMs
  return staleAt - random() * Math.max(0, staleAt - start)
}

/**
 * The earliest moment a timer or on-demand refresh may start: one lead time after the last
 * `getToken` call (half the spread in the first cycle, whose window is wide), and never closer
 * than `MIN_REFRESH_INTERVAL_MS`, so a client clock wrong by hours cannot cause a storm.
 *
 * @example
 * ```ts
 * earliestRefreshAt(1000, 6000, 0, false) // 7000: last fetch, lead, spread, first cycle
 * ```
 */
export function earliestRefreshAt(
  lastFetchAt: number,
  leadMs: number,
  spreadMs: number,
  firstCycle: boolean,
): number {
  const bound = firstCycle && spreadMs > 0 ? spreadMs / 2 : leadMs
  return lastFetchAt + Math.max(MIN_REFRESH_INTERVAL_MS, bound)
}

/**
 * Whether playback is waiting for a token: a request is held for one, or one of the video's
 * requests came within `DEMAND_WINDOW_MS`.
 *
 * @example
 * ```ts
 * playbackWaiting(20_000, 15_000, 0) // true: now, last request, requests held
 * ```
 */
export function playbackWaiting(now: number, lastDemandAt: number, held: number): boolean {
  return held > 0 || now - lastDemandAt < DEMAND_WINDOW_MS
}

/**
 * Jittered exponential backoff after the `failures`-th failure in a row. Capped at half the
 * remaining validity (and `maxMs`) while the token is valid; once expired at `expiredMaxMs`
 * while playback waits (`waiting`: {@link playbackWaiting}) (seconds, not tens of seconds), else at `maxMs` (a paused player does not
 * hammer a failing backend). The jitter keeps 50–100 % of the delay.
 *
 * @example
 * ```ts
 * backoffDelay(3, 60_000, false, retry, () => 1) // 2000: 3rd failure, 60 s left, nothing waits
 * ```
 */
export function backoffDelay(
  failures: number,
  remainingMs: number,
  waiting: boolean,
  retry: RetryPolicy,
  random: () => number,
): number {
  const { baseMs, maxMs, expiredMaxMs } = retry
  const cap =
    remainingMs > 0
      ? Math.min(maxMs, Math.max(baseMs, remainingMs / 2))
      : waiting
        ? Math.max(baseMs, expiredMaxMs)
        : maxMs
  return Math.min(cap, baseMs * 2 ** (failures - 1)) * (0.5 + random() / 2)
}

/**
 * The wait before retrying a failed refresh: the backoff, or what the backend asked for
 * (`retryAfterMs`: a 429 or 503 with `Retry-After`) when longer. Never sooner than asked, except
 * that a still-valid token is not let expire for it (the viewer gets one try at expiry), and once
 * expired at most `MAX_RETRY_AFTER_MS`.
 *
 * @example
 * ```ts
 * retryDelay(500, 10_000, 4000) // 4000: backoff, Retry-After, validity left
 * ```
 */
export function retryDelay(
  backoffMs: number,
  retryAfterMs: number | undefined,
  remainingMs: number,
): number {
  if (retryAfterMs === undefined || !(retryAfterMs > 0)) return backoffMs
  const bound = remainingMs > 0 ? remainingMs : MAX_RETRY_AFTER_MS
  return Math.max(backoffMs, Math.min(retryAfterMs, bound))
}

/**
 * Whether a planned retry should be brought forward because playback now asks for an expired
 * token (the outage retry): the backend was failing while nothing played, so the retry was
 * planned at the paused player's slow pace; it is due within `expiredMaxMs` now.
 *
 * @example
 * ```ts
 * outageRetryIsLate(0, 20_000, retry) // true: now, retry due at
 * ```
 */
export function outageRetryIsLate(now: number, retryDueAt: number, retry: RetryPolicy): boolean {
  return retryDueAt - now > retry.expiredMaxMs
}

/**
 * The delay to hand `setTimeout` for a wait of `ms`: not negative, not past {@link MAX_TIMER_MS}.
 *
 * @example
 * ```ts
 * timerDelay(-5) // 0
 * ```
 */
export function timerDelay(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_MS)
}
