import { HeldRequests } from './held-requests.ts'
import {
  backoffDelay,
  earliestRefreshAt,
  outageRetryIsLate,
  planRefreshAt,
  retryDelay,
  type TimerState,
  timerDelay,
} from './refresh-schedule.ts'
import {
  MAX_RETRY_AFTER_MS,
  MIN_REFRESH_INTERVAL_MS,
  type RefreshSettings,
} from './refresh-settings.ts'
import type { TimerHandle } from './types.ts'

/** What a {@link RefreshTimer} reads from its refresher (a `TokenRefresher`), and asks of it. */
export interface RefreshTimerOwner {
  /** When the current token enters its lead window (client ms). */
  readonly staleAt: number
  /** When the current token expires (client ms). */
  readonly expiresAt: number
  /** Starts a refresh now (concurrent calls share one): the planned moment came, or a retry. */
  refresh(): Promise<unknown>
}

/**
 * The refresh timer and its backoff state (Shaka's `lib/net/backoff.js` is the model): when the
 * next refresh is planned, how many refreshes failed in a row, the last `getToken` call, the
 * last request of the video. It decides nothing itself: the arithmetic is the pure functions of
 * `refresh-schedule.ts`, each given the settings and the timer itself (its {@link TimerState});
 * the refresher tells it what happened.
 *
 * @example
 * ```ts
 * const timer = new RefreshTimer(settings, owner, settings.clock.now())
 * timer.renewed() // a new record: plans its refresh and arms the timer
 * timer.failed(error) // a refresh failed: retried after the backoff
 * ```
 */
export class RefreshTimer implements TimerState {
  failures = 0
  /** Client time of the last getToken call (the rate bound counts from it). */
  lastFetchAt: number
  /** Until the first refresh: the rate bound is half the spread, so the first window can be wide. */
  firstCycle = true
  /** Client time of the last request of the video: playback needs tokens. */
  lastDemandAt = Number.NEGATIVE_INFINITY
  /** Requests waiting for a new record while the token is expired (an outage). */
  readonly held = new HeldRequests()
  readonly #settings: RefreshSettings
  readonly #owner: RefreshTimerOwner
  /** Client time at which the timer refreshes: inside the spread window before staleAt. */
  #refreshAt = 0
  #handle: TimerHandle | undefined
  /** Client time at which the armed timer fires. */
  #dueAt = 0
  /** Client time before which the backend asked not to be called again (`Retry-After`). */
  #askedUntil = 0
  #stopped = false

  constructor(settings: RefreshSettings, owner: RefreshTimerOwner, fetchedAt: number) {
    this.#settings = settings
    this.#owner = owner
    this.lastFetchAt = fetchedAt
  }

  get now(): number {
    return this.#settings.clock.now()
  }

  get staleAt(): number {
    return this.#owner.staleAt
  }

  get remainingMs(): number {
    return this.#owner.expiresAt - this.now
  }

  /** The page became visible: what its throttling held back runs ({@link wake}). */
  readonly #onVisible = () => {
    if (!this.#settings.visibility?.hidden) this.wake()
  }

  /** The first record is in: plans its refresh, arms the timer, and wakes with the page. */
  start(): void {
    this.#settings.visibility?.addEventListener('visibilitychange', this.#onVisible)
    this.#plan()
    this.arm()
  }

  /**
   * A request waits for the next record, the token having expired (at most `maxOutageWaitMs`).
   * With nothing `onTheWay` (a record that came with less time than the lead), one is retried
   * at the outage pace, as after a failed refresh.
   */
  awaitRecord(onTheWay: boolean): Promise<void> {
    this.demand()
    if (!onTheWay) this.failed(undefined)
    return this.held.hold(this.#settings.maxOutageWaitMs, this.#settings.timers)
  }

  /** A `getToken` call starts now (the rate bound counts from here). */
  fetching(): void {
    this.lastFetchAt = this.now
  }

  /**
   * A new record came in (fetched, or a peer's): the held requests go, the backoff ends, its
   * refresh is planned.
   */
  renewed(): void {
    this.held.releaseAll()
    this.failures = 0
    this.#askedUntil = 0
    this.firstCycle = false
    this.#plan()
    this.arm()
  }

  /** A refresh failed: retried after the backoff, or the `retryAfterMs` the backend asked for. */
  failed(retryAfterMs: number | undefined): void {
    this.failures++
    // what the backend asked, bounded as retryDelay bounds it: a valid token keeps its one try
    // at expiry; kept from an earlier failure that asked longer
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      const bound = this.remainingMs > 0 ? this.remainingMs : MAX_RETRY_AFTER_MS
      this.#askedUntil = Math.max(this.#askedUntil, this.now + Math.min(retryAfterMs, bound))
    }
    this.arm(retryDelay(this.#settings, this, retryAfterMs))
  }

  /**
   * The page became visible again: the timer its throttling held back runs now, a retry as soon
   * as the backend's `Retry-After` allows (never later than it was armed for).
   */
  wake(): void {
    const asked = Math.max(0, this.#askedUntil - this.now)
    this.arm(this.failures > 0 ? Math.min(asked, Math.max(0, this.#dueAt - this.now)) : 0)
  }

  /**
   * Whether an on-demand refresh may start now: the token is `stale`, no retry is pending, and
   * the rate bound allows it.
   */
  due(stale: boolean): boolean {
    return stale && this.failures === 0 && this.now >= earliestRefreshAt(this.#settings, this)
  }

  /**
   * A request of the video is being made. While the token is expired and a retry is planned far
   * off (the backend was failing while nothing played), it is brought forward: playback waits,
   * though not past what the backend's `Retry-After` asked.
   */
  demand(): void {
    this.lastDemandAt = this.now
    // a retry that a fetch under way replaces anyway is harmless: both end in renewed or failed
    if (this.failures === 0 || this.#handle === undefined || this.remainingMs > 0) return
    const delay = Math.max(backoffDelay(this.#settings, this), this.#askedUntil - this.now)
    // past its moment by more than a timer's jitter and not run: the timer was held back (a
    // laptop asleep, whose timers do not count the sleep; a throttled tab)
    const heldBack = this.now - this.#dueAt > MIN_REFRESH_INTERVAL_MS
    if (
      heldBack ||
      (outageRetryIsLate(this.#settings, this, this.#dueAt) && this.now + delay < this.#dueAt)
    )
      this.arm(delay)
  }

  /** Arms the timer: after `delay` ms (a retry), or at the planned moment (never before the rate bound). */
  arm(delay?: number): void {
    if (this.#stopped) return
    const { timers } = this.#settings
    if (this.#handle !== undefined) timers.clear(this.#handle)
    const planned = () => Math.max(this.#refreshAt, earliestRefreshAt(this.#settings, this))
    const ms = timerDelay(delay ?? planned() - this.now)
    this.#dueAt = this.now + ms
    this.#handle = timers.set(() => {
      this.#handle = undefined
      const retrying = delay !== undefined && this.failures > 0
      // a long wait was cut at MAX_TIMER_MS: re-arm until the planned moment
      // a fetch under way is shared, not repeated
      if (retrying || this.now >= planned()) this.#owner.refresh().catch(() => undefined)
      else this.arm()
    }, ms)
  }

  /** Stops the timer for good; held requests go. */
  stop(): void {
    this.#stopped = true
    this.#settings.visibility?.removeEventListener('visibilitychange', this.#onVisible)
    this.held.releaseAll()
    if (this.#handle !== undefined) this.#settings.timers.clear(this.#handle)
    this.#handle = undefined
  }

  #plan(): void {
    this.#refreshAt = planRefreshAt(this.#settings, this)
  }
}
