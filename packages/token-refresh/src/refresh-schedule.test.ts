import { describe, expect, it } from 'vitest'
import {
  backoffDelay,
  earliestRefreshAt,
  MAX_TIMER_MS,
  outageRetryIsLate,
  planRefreshAt,
  playbackWaiting,
  retryDelay,
  timerDelay,
} from './refresh-schedule.ts'
import { REFRESH_DEFAULTS } from './refresh-settings.ts'

const retry = { ...REFRESH_DEFAULTS.retry }
const fixed = (value: number) => () => value

describe('planRefreshAt', () => {
  const at = { staleAt: 100_000, now: 0, spreadMs: 20_000, random: fixed(0) }

  it('lands in the spread before the lead time, never after it', () => {
    expect(planRefreshAt({ ...at, firstCycle: false })).toBe(100_000)
    expect(planRefreshAt({ ...at, firstCycle: false, random: fixed(0.75) })).toBe(85_000)
  })

  it('spreads the first cycle from half the spread after now', () => {
    expect(planRefreshAt({ ...at, firstCycle: true, random: fixed(0.5) })).toBe(55_000)
  })

  it('without a spread, or with no room left, is the lead time itself', () => {
    expect(planRefreshAt({ ...at, spreadMs: 0, firstCycle: true, random: fixed(0.7) })).toBe(
      100_000,
    )
    expect(planRefreshAt({ ...at, now: 200_000, firstCycle: true, random: fixed(0.7) })).toBe(
      100_000,
    )
  })
})

describe('earliestRefreshAt', () => {
  it('is one lead after the last fetch, half the spread in the first cycle', () => {
    const at = { lastFetchAt: 5000, leadMs: 60_000, spreadMs: 16_000 }
    expect(earliestRefreshAt({ ...at, firstCycle: false })).toBe(65_000)
    expect(earliestRefreshAt({ ...at, firstCycle: true })).toBe(13_000)
    expect(earliestRefreshAt({ ...at, spreadMs: 0, firstCycle: true })).toBe(65_000)
  })

  it('never allows two refreshes closer than a second', () => {
    expect(earliestRefreshAt({ lastFetchAt: 0, leadMs: 10, spreadMs: 0, firstCycle: false })).toBe(
      REFRESH_DEFAULTS.minRefreshIntervalMs,
    )
  })
})

describe('backoffDelay', () => {
  const at = { remainingMs: 600_000, playbackWaiting: false, retry, random: fixed(1) }

  it('doubles from baseMs and keeps 50–100 % of it as jitter', () => {
    expect([1, 2, 3, 4].map((failures) => backoffDelay({ ...at, failures }))).toEqual([
      500, 1000, 2000, 4000,
    ])
    expect(backoffDelay({ ...at, failures: 3, random: fixed(0) })).toBe(1000)
  })

  it('is capped at maxMs, and at half of what remains of a valid token', () => {
    expect(backoffDelay({ ...at, failures: 20 })).toBe(30_000)
    expect(backoffDelay({ ...at, failures: 20, remainingMs: 8000 })).toBe(4000)
    expect(backoffDelay({ ...at, failures: 20, remainingMs: 100 })).toBe(500)
  })

  it('once expired: expiredMaxMs while playback waits, maxMs while nothing plays', () => {
    const expired = { ...at, failures: 20, remainingMs: -1 }
    expect(backoffDelay({ ...expired, playbackWaiting: true })).toBe(3000)
    expect(backoffDelay(expired)).toBe(30_000)
  })
})

describe('retryDelay', () => {
  it('is the backoff unless the backend asked for longer', () => {
    expect(retryDelay({ backoffMs: 800, retryAfterMs: undefined, remainingMs: 60_000 })).toBe(800)
    expect(retryDelay({ backoffMs: 800, retryAfterMs: 0, remainingMs: 60_000 })).toBe(800)
    expect(retryDelay({ backoffMs: 800, retryAfterMs: 500, remainingMs: 60_000 })).toBe(800)
    expect(retryDelay({ backoffMs: 800, retryAfterMs: 7000, remainingMs: 60_000 })).toBe(7000)
  })

  it('does not let a valid token expire for it, and caps it at 5 minutes once expired', () => {
    expect(retryDelay({ backoffMs: 800, retryAfterMs: 90_000, remainingMs: 4000 })).toBe(4000)
    expect(retryDelay({ backoffMs: 800, retryAfterMs: 86_400_000, remainingMs: -1 })).toBe(
      REFRESH_DEFAULTS.maxRetryAfterMs,
    )
  })
})

describe('the outage retry', () => {
  it('playback waits while a request is held or one came in the last 10 s', () => {
    expect(playbackWaiting({ now: 20_000, lastDemandAt: 10_001, held: 0 })).toBe(true)
    expect(playbackWaiting({ now: 20_000, lastDemandAt: 10_000, held: 0 })).toBe(false)
    expect(playbackWaiting({ now: 20_000, lastDemandAt: Number.NEGATIVE_INFINITY, held: 1 })).toBe(
      true,
    )
  })

  it('a retry planned further off than expiredMaxMs is brought forward', () => {
    expect(outageRetryIsLate({ now: 0, retryDueAt: 3000, retry })).toBe(false)
    expect(outageRetryIsLate({ now: 0, retryDueAt: 3001, retry })).toBe(true)
  })
})

describe('timerDelay', () => {
  it('is never negative and never overflows setTimeout', () => {
    expect(timerDelay(-1)).toBe(0)
    expect(timerDelay(1234)).toBe(1234)
    expect(timerDelay(10 * 365 * 86_400_000)).toBe(MAX_TIMER_MS)
  })
})
