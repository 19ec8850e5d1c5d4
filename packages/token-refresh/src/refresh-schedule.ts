/**
 * The refresh timer's arithmetic, as small pure functions of ONE settings object (the
 * refresher's, resolved once) and the moment the timer is at (its {@link TimerState}): when the
 * next refresh is planned, how soon one may start, how long a failed one waits. The timer
 * (`refresh-timer.ts`) only feeds them its state; they are tested alone
 * (`refresh-schedule.test.ts`). The model is hls.js's `getRetryDelay(retryConfig, retryCount)`.
 */
import {
  DEMAND_WINDOW_MS,
  MAX_RETRY_AFTER_MS,
  MIN_REFRESH_INTERVAL_MS,
  type RefreshSettings,
} from './refresh-settings.ts'

/** `setTimeout` overflows above 2^31-1 ms and fires at once; longer waits re-arm instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** What the refresh timer knows at one moment (client times in ms, like `Date.now()`). */
export interface TimerState {
  readonly now: number
  /** When the current token enters its lead window. */
  readonly staleAt: number
  /** How long the current token stays valid, on the server's clock (≤ 0 once expired). */
  readonly remainingMs: number
  /** The last `getToken` call. */
  readonly lastFetchAt: number
  /** Until the first refresh: its window spans the whole first lifetime. */
  readonly firstCycle: boolean
  /** Failed refreshes in a row. */
  readonly failures: number
  /** The last request of the video (rewrite, prepare, recover). */
  readonly lastDemandAt: number
  /** Requests held for a new token (an outage). */
  readonly held: { readonly size: number }
}

/** The settings the schedule reads. */
export type ScheduleSettings = Pick<RefreshSettings, 'leadMs' | 'spreadMs' | 'retry' | 'random'>

/**
 * The timer's refresh moment, uniform in a window that ends at `staleAt` (the lead time): the
 * spread before it, or for the first cycle everything from half the spread after `now` (the
 * steady period's length, so the first cycle of a herd is as flat as later ones).
 *
 * @example
 * ```ts
 * planRefreshAt({ ...settings, spreadMs: 10_000, random: () => 0.5 }, { ...state, staleAt: 60_000 }) // 55_000
 * ```
 */
export function planRefreshAt(settings: ScheduleSettings, state: TimerState): number {
  const { spreadMs, random } = settings
  const { staleAt, now, firstCycle } = state
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
 * earliestRefreshAt({ ...settings, leadMs: 6000 }, { ...state, lastFetchAt: 1000, firstCycle: false }) // 7000
 * ```
 */
export function earliestRefreshAt(settings: ScheduleSettings, state: TimerState): number {
  const { leadMs, spreadMs } = settings
  const bound = state.firstCycle && spreadMs > 0 ? spreadMs / 2 : leadMs
  return state.lastFetchAt + Math.max(MIN_REFRESH_INTERVAL_MS, bound)
}

/**
 * Whether playback is waiting for a token: a request is held for one, or one of the video's
 * requests came within `DEMAND_WINDOW_MS`.
 *
 * @example
 * ```ts
 * playbackWaiting({ ...state, now: 20_000, lastDemandAt: 15_000 }) // true
 * ```
 */
export function playbackWaiting(state: TimerState): boolean {
  return state.held.size > 0 || state.now - state.lastDemandAt < DEMAND_WINDOW_MS
}

/**
 * Jittered exponential backoff after the state's `failures`-th failure in a row. Capped at half
 * the remaining validity (and `maxMs`) while the token is valid; once expired at `expiredMaxMs`
 * while playback waits ({@link playbackWaiting}: seconds, not tens of seconds), else at `maxMs`
 * (a paused player does not hammer a failing backend). The jitter keeps 50–100 % of the delay.
 *
 * @example
 * ```ts
 * backoffDelay({ ...settings, random: () => 1 }, { ...state, failures: 3, remainingMs: 60_000 }) // 2000
 * ```
 */
export function backoffDelay(settings: ScheduleSettings, state: TimerState): number {
  const { baseMs, maxMs, expiredMaxMs } = settings.retry
  const { remainingMs, failures } = state
  const cap =
    remainingMs > 0
      ? Math.min(maxMs, Math.max(baseMs, remainingMs / 2))
      : playbackWaiting(state)
        ? Math.max(baseMs, expiredMaxMs)
        : maxMs
  return Math.min(cap, baseMs * 2 ** (failures - 1)) * (0.5 + settings.random() / 2)
}

/**
 * The wait before retrying a failed refresh: the backoff, or what the backend asked for
 * (`retryAfterMs`: a 429 or 503 with `Retry-After`) when longer. Never sooner than asked, except
 * that a still-valid token is not let expire for it (the viewer gets one try at expiry), and once
 * expired at most `MAX_RETRY_AFTER_MS`.
 *
 * @example
 * ```ts
 * retryDelay(settings, { ...state, remainingMs: 4000 }, 10_000) // 4000 (the backoff if longer)
 * ```
 */
export function retryDelay(
  settings: ScheduleSettings,
  state: TimerState,
  retryAfterMs: number | undefined,
): number {
  const backoff = backoffDelay(settings, state)
  if (retryAfterMs === undefined || !(retryAfterMs > 0)) return backoff
  const bound = state.remainingMs > 0 ? state.remainingMs : MAX_RETRY_AFTER_MS
  return Math.max(backoff, Math.min(retryAfterMs, bound))
}

/**
 * Whether a retry due at `dueAt` should be brought forward because playback now asks for an
 * expired token (the outage retry): the backend was failing while nothing played, so the retry
 * was planned at the paused player's slow pace; it is due within `expiredMaxMs` now.
 *
 * @example
 * ```ts
 * outageRetryIsLate(settings, { ...state, now: 0 }, 20_000) // true
 * ```
 */
export function outageRetryIsLate(
  settings: ScheduleSettings,
  state: TimerState,
  dueAt: number,
): boolean {
  return dueAt - state.now > settings.retry.expiredMaxMs
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
