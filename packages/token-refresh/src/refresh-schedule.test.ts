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
import { DEFAULT_RETRY, MAX_RETRY_AFTER_MS, MIN_REFRESH_INTERVAL_MS } from './refresh-settings.ts'

const retry = { ...DEFAULT_RETRY }
const fixed = (value: number) => () => value

describe('planRefreshAt', () => {
  it('lands in the spread before the lead time, never after it', () => {
    expect(planRefreshAt(100_000, 0, 20_000, false, fixed(0))).toBe(100_000)
    expect(planRefreshAt(100_000, 0, 20_000, false, fixed(0.75))).toBe(85_000)
  })

  it('spreads the first cycle from half the spread after now', () => {
    expect(planRefreshAt(100_000, 0, 20_000, true, fixed(0.5))).toBe(55_000)
  })

  it('without a spread, or with no room left, is the lead time itself', () => {
    expect(planRefreshAt(100_000, 0, 0, true, fixed(0.7))).toBe(100_000)
    expect(planRefreshAt(100_000, 200_000, 20_000, true, fixed(0.7))).toBe(100_000)
  })
})

describe('earliestRefreshAt', () => {
  it('is one lead after the last fetch, half the spread in the first cycle', () => {
    expect(earliestRefreshAt(5000, 60_000, 16_000, false)).toBe(65_000)
    expect(earliestRefreshAt(5000, 60_000, 16_000, true)).toBe(13_000)
    expect(earliestRefreshAt(5000, 60_000, 0, true)).toBe(65_000)
  })

  it('never allows two refreshes closer than a second', () => {
    expect(earliestRefreshAt(0, 10, 0, false)).toBe(MIN_REFRESH_INTERVAL_MS)
  })
})

describe('backoffDelay', () => {
  const valid = 600_000

  it('doubles from baseMs and keeps 50–100 % of it as jitter', () => {
    expect(
      [1, 2, 3, 4].map((failures) => backoffDelay(failures, valid, false, retry, fixed(1))),
    ).toEqual([500, 1000, 2000, 4000])
    expect(backoffDelay(3, valid, false, retry, fixed(0))).toBe(1000)
  })

  it('is capped at maxMs, and at half of what remains of a valid token', () => {
    expect(backoffDelay(20, valid, false, retry, fixed(1))).toBe(30_000)
    expect(backoffDelay(20, 8000, false, retry, fixed(1))).toBe(4000)
    expect(backoffDelay(20, 100, false, retry, fixed(1))).toBe(500)
  })

  it('once expired: expiredMaxMs while playback waits, maxMs while nothing plays', () => {
    expect(backoffDelay(20, -1, true, retry, fixed(1))).toBe(3000)
    expect(backoffDelay(20, -1, false, retry, fixed(1))).toBe(30_000)
  })
})

describe('retryDelay', () => {
  it('is the backoff unless the backend asked for longer', () => {
    expect(retryDelay(800, undefined, 60_000)).toBe(800)
    expect(retryDelay(800, 0, 60_000)).toBe(800)
    expect(retryDelay(800, 500, 60_000)).toBe(800)
    expect(retryDelay(800, 7000, 60_000)).toBe(7000)
  })

  it('does not let a valid token expire for it, and caps it at 5 minutes once expired', () => {
    expect(retryDelay(800, 90_000, 4000)).toBe(4000)
    expect(retryDelay(800, 86_400_000, -1)).toBe(MAX_RETRY_AFTER_MS)
  })
})

describe('the outage retry', () => {
  it('playback waits while a request is held or one came in the last 10 s', () => {
    expect(playbackWaiting(20_000, 10_001, 0)).toBe(true)
    expect(playbackWaiting(20_000, 10_000, 0)).toBe(false)
    expect(playbackWaiting(20_000, Number.NEGATIVE_INFINITY, 1)).toBe(true)
  })

  it('a retry planned further off than expiredMaxMs is brought forward', () => {
    expect(outageRetryIsLate(0, 3000, retry)).toBe(false)
    expect(outageRetryIsLate(0, 3001, retry)).toBe(true)
  })
})

describe('timerDelay', () => {
  it('is never negative and never overflows setTimeout', () => {
    expect(timerDelay(-1)).toBe(0)
    expect(timerDelay(1234)).toBe(1234)
    expect(timerDelay(10 * 365 * 86_400_000)).toBe(MAX_TIMER_MS)
  })
})
