import { describe, expect, it } from 'vitest'
import {
  backoffDelay,
  earliestRefreshAt,
  MAX_TIMER_MS,
  outageRetryIsLate,
  planRefreshAt,
  playbackWaiting,
  retryDelay,
  type ScheduleSettings,
  type TimerState,
  timerDelay,
} from './refresh-schedule.ts'
import { DEFAULT_RETRY, MAX_RETRY_AFTER_MS, MIN_REFRESH_INTERVAL_MS } from './refresh-settings.ts'

/** Settings with `random` always `value` (and whatever else the test sets). */
const settings = (value: number, more: Partial<ScheduleSettings> = {}): ScheduleSettings => ({
  leadMs: 60_000,
  spreadMs: 0,
  retry: { ...DEFAULT_RETRY },
  random: () => value,
  ...more,
})

/** A timer state at 0 ms, with a valid token and nothing failed or waiting (and the test's changes). */
const state = (more: Partial<TimerState> = {}): TimerState => ({
  now: 0,
  staleAt: 100_000,
  remainingMs: 600_000,
  lastFetchAt: 0,
  firstCycle: false,
  failures: 0,
  lastDemandAt: Number.NEGATIVE_INFINITY,
  held: { size: 0 },
  ...more,
})

describe('planRefreshAt', () => {
  it('lands in the spread before the lead time, never after it', () => {
    expect(planRefreshAt(settings(0, { spreadMs: 20_000 }), state())).toBe(100_000)
    expect(planRefreshAt(settings(0.75, { spreadMs: 20_000 }), state())).toBe(85_000)
  })

  it('spreads the first cycle from half the spread after now', () => {
    const first = state({ firstCycle: true })
    expect(planRefreshAt(settings(0.5, { spreadMs: 20_000 }), first)).toBe(55_000)
  })

  it('without a spread, or with no room left, is the lead time itself', () => {
    expect(planRefreshAt(settings(0.7), state({ firstCycle: true }))).toBe(100_000)
    const late = state({ now: 200_000, firstCycle: true })
    expect(planRefreshAt(settings(0.7, { spreadMs: 20_000 }), late)).toBe(100_000)
  })
})

describe('earliestRefreshAt', () => {
  it('is one lead after the last fetch, half the spread in the first cycle', () => {
    const spread = settings(0, { spreadMs: 16_000 })
    expect(earliestRefreshAt(spread, state({ lastFetchAt: 5000 }))).toBe(65_000)
    expect(earliestRefreshAt(spread, state({ lastFetchAt: 5000, firstCycle: true }))).toBe(13_000)
    expect(earliestRefreshAt(settings(0), state({ lastFetchAt: 5000, firstCycle: true }))).toBe(
      65_000,
    )
  })

  it('never allows two refreshes closer than a second', () => {
    expect(earliestRefreshAt(settings(0, { leadMs: 10 }), state())).toBe(MIN_REFRESH_INTERVAL_MS)
  })
})

describe('backoffDelay', () => {
  it('doubles from baseMs and keeps 50–100 % of it as jitter', () => {
    expect([1, 2, 3, 4].map((failures) => backoffDelay(settings(1), state({ failures })))).toEqual([
      500, 1000, 2000, 4000,
    ])
    expect(backoffDelay(settings(0), state({ failures: 3 }))).toBe(1000)
  })

  it('is capped at maxMs, and at half of what remains of a valid token', () => {
    expect(backoffDelay(settings(1), state({ failures: 20 }))).toBe(30_000)
    expect(backoffDelay(settings(1), state({ failures: 20, remainingMs: 8000 }))).toBe(4000)
    expect(backoffDelay(settings(1), state({ failures: 20, remainingMs: 100 }))).toBe(500)
  })

  it('once expired: expiredMaxMs while playback waits, maxMs while nothing plays', () => {
    const expired = state({ failures: 20, remainingMs: -1 })
    expect(backoffDelay(settings(1), { ...expired, held: { size: 1 } })).toBe(3000)
    expect(backoffDelay(settings(1), expired)).toBe(30_000)
  })
})

describe('retryDelay', () => {
  // the backoff of the first failure, with full jitter: 500 ms
  const first = state({ failures: 1 })

  it('is the backoff unless the backend asked for longer', () => {
    expect(retryDelay(settings(1), first, undefined)).toBe(500)
    expect(retryDelay(settings(1), first, 0)).toBe(500)
    expect(retryDelay(settings(1), first, 400)).toBe(500)
    expect(retryDelay(settings(1), first, 7000)).toBe(7000)
  })

  it('does not let a valid token expire for it, and caps it at 5 minutes once expired', () => {
    expect(retryDelay(settings(1), { ...first, remainingMs: 4000 }, 90_000)).toBe(4000)
    expect(retryDelay(settings(1), { ...first, remainingMs: -1 }, 86_400_000)).toBe(
      MAX_RETRY_AFTER_MS,
    )
  })
})

describe('the outage retry', () => {
  it('playback waits while a request is held or one came in the last 10 s', () => {
    expect(playbackWaiting(state({ now: 20_000, lastDemandAt: 10_001 }))).toBe(true)
    expect(playbackWaiting(state({ now: 20_000, lastDemandAt: 10_000 }))).toBe(false)
    expect(playbackWaiting(state({ now: 20_000, held: { size: 1 } }))).toBe(true)
  })

  it('a retry planned further off than expiredMaxMs is brought forward', () => {
    expect(outageRetryIsLate(settings(0), state(), 3000)).toBe(false)
    expect(outageRetryIsLate(settings(0), state(), 3001)).toBe(true)
  })
})

describe('timerDelay', () => {
  it('is never negative and never overflows setTimeout', () => {
    expect(timerDelay(-1)).toBe(0)
    expect(timerDelay(1234)).toBe(1234)
    expect(timerDelay(10 * 365 * 86_400_000)).toBe(MAX_TIMER_MS)
  })
})
