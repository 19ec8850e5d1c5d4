/**
 * The refresh timer's arithmetic, as pure functions of the moment and the settings: when the
 * next refresh is planned, how soon one may start, how long a failed one waits. The refresher
 * only feeds them its state; they are tested alone (`refresh-schedule.test.ts`).
 */
import { REFRESH_DEFAULTS, type RetryPolicy } from './refresh-settings.ts'

/** `setTimeout` overflows above 2^31-1 ms and fires at once; longer waits re-arm instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * The timer's refresh moment, uniform in a window that ends at `staleAt` (the lead time): the
 * spread before it, or for the first cycle everything from half the spread after `now` (the
 * steady period's length, so the first cycle of a herd is as flat as later ones).
 *
 * @example
 * ```ts
 * planRefreshAt({ staleAt: 60_000, now: 0, spreadMs: 10_000, firstCycle: false, random: () => 0.5 }) // 55_000
 * ```
 */
export function planRefreshAt(at: {
  staleAt: number
  now: number
  spreadMs: number
  firstCycle: boolean
  random: () => number
}): number {
  const { staleAt, now, spreadMs, firstCycle, random } = at
  if (!(spreadMs > 0)) return staleAt
  const start = firstCycle ? now + spreadMs / 2 : staleAt - spreadMs
  return staleAt - random() * Math.max(0, staleAt - start)
}

/**
 * The earliest moment a timer or on-demand refresh may start: one lead time after the last
 * `getToken` call (half the spread in the first cycle, whose window is wide), and never closer
 * than `minRefreshIntervalMs`, so a client clock wrong by hours cannot cause a storm.
 *
 * @example
 * ```ts
 * earliestRefreshAt({ lastFetchAt: 1000, leadMs: 6000, spreadMs: 0, firstCycle: false }) // 7000
 * ```
 */
export function earliestRefreshAt(at: {
  lastFetchAt: number
  leadMs: number
  spreadMs: number
  firstCycle: boolean
}): number {
  const bound = at.firstCycle && at.spreadMs > 0 ? at.spreadMs / 2 : at.leadMs
  return at.lastFetchAt + Math.max(REFRESH_DEFAULTS.minRefreshIntervalMs, bound)
}

/**
 * Whether playback is waiting for a token: a request is held for one, or one of the video's
 * requests came within `demandWindowMs`.
 *
 * @example
 * ```ts
 * playbackWaiting({ now: 20_000, lastDemandAt: 15_000, held: 0 }) // true
 * ```
 */
export function playbackWaiting(at: { now: number; lastDemandAt: number; held: number }): boolean {
  return at.held > 0 || at.now - at.lastDemandAt < REFRESH_DEFAULTS.demandWindowMs
}

/**
 * Jittered exponential backoff after the `failures`-th failure in a row. Capped at half the
 * remaining validity (and `maxMs`) while the token is valid; once expired at `expiredMaxMs`
 * while playback waits (seconds, not tens of seconds), else at `maxMs` (a paused player does not
 * hammer a failing backend). The jitter keeps 50–100 % of the delay.
 *
 * @example
 * ```ts
 * backoffDelay({ failures: 3, remainingMs: 60_000, playbackWaiting: false, retry, random: () => 1 }) // 2000
 * ```
 */
export function backoffDelay(at: {
  failures: number
  remainingMs: number
  playbackWaiting: boolean
  retry: RetryPolicy
  random: () => number
}): number {
  const { baseMs, maxMs, expiredMaxMs } = at.retry
  const cap =
    at.remainingMs > 0
      ? Math.min(maxMs, Math.max(baseMs, at.remainingMs / 2))
      : at.playbackWaiting
        ? Math.max(baseMs, expiredMaxMs)
        : maxMs
  return Math.min(cap, baseMs * 2 ** (at.failures - 1)) * (0.5 + at.random() / 2)
}

/**
 * The wait before retrying a failed refresh: the backoff, or what the backend asked for
 * (`retryAfterMs`: a 429 or 503 with `Retry-After`) when longer. Never sooner than asked, except
 * that a still-valid token is not let expire for it (the viewer gets one try at expiry), and once
 * expired at most `maxRetryAfterMs`.
 *
 * @example
 * ```ts
 * retryDelay({ backoffMs: 500, retryAfterMs: 10_000, remainingMs: 4000 }) // 4000
 * ```
 */
export function retryDelay(at: {
  backoffMs: number
  retryAfterMs: number | undefined
  remainingMs: number
}): number {
  const asked = at.retryAfterMs
  if (asked === undefined || !(asked > 0)) return at.backoffMs
  const bound = at.remainingMs > 0 ? at.remainingMs : REFRESH_DEFAULTS.maxRetryAfterMs
  return Math.max(at.backoffMs, Math.min(asked, bound))
}

/**
 * Whether a planned retry should be brought forward because playback now asks for an expired
 * token (the outage retry): the backend was failing while nothing played, so the retry was
 * planned at the paused player's slow pace; it is due within `expiredMaxMs` now.
 *
 * @example
 * ```ts
 * outageRetryIsLate({ now: 0, retryDueAt: 20_000, retry }) // true
 * ```
 */
export function outageRetryIsLate(at: {
  now: number
  retryDueAt: number
  retry: RetryPolicy
}): boolean {
  return at.retryDueAt - at.now > at.retry.expiredMaxMs
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
