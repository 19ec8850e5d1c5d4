import { describe, expect, it } from 'vitest'
import { responseOutcome, sendingTimeoutMs } from './sending.ts'

describe('sendingTimeoutMs', () => {
  it("leaves dash.js's own timeout alone with one CDN", () => {
    expect(sendingTimeoutMs(undefined, { type: 'MediaSegment', duration: 2 }, 20_000)).toBe(
      undefined,
    )
  })

  it('gives a media segment the first-byte bound plus its own duration', () => {
    expect(sendingTimeoutMs(3000, { type: 'MediaSegment', duration: 2 }, 20_000)).toBe(5000)
  })

  it('gives the MPD and init segments (no duration) the first-byte bound alone', () => {
    expect(sendingTimeoutMs(3000, { type: 'MPD' }, 10_000)).toBe(3000)
    expect(sendingTimeoutMs(3000, { type: 'InitializationSegment', duration: Number.NaN }, 0)).toBe(
      3000,
    )
    expect(sendingTimeoutMs(3000, undefined, undefined)).toBe(3000)
  })

  it("is never longer than dash.js's own timeout for the request", () => {
    expect(sendingTimeoutMs(3000, { type: 'MediaSegment', duration: 4 }, 5000)).toBe(5000)
    expect(sendingTimeoutMs(3000, { type: 'MPD' }, 1000)).toBe(1000)
  })
})

describe('responseOutcome', () => {
  it('is nothing for a success', () => {
    expect(responseOutcome(200, 10, 3000)).toBe(undefined)
    expect(responseOutcome(206, 10, undefined)).toBe(undefined)
  })

  it('is the status of any other answer', () => {
    expect(responseOutcome(403, 10, 3000)).toBe(403)
    expect(responseOutcome(410, 10, undefined)).toBe(410)
    expect(responseOutcome(503, 10, 3000)).toBe(503)
    expect(responseOutcome(404, 10, 3000)).toBe(404)
  })

  it('is a timeout when no status came and the sending ran into its bound', () => {
    expect(responseOutcome(0, 3001, 3000)).toBe('timeout')
    expect(responseOutcome(undefined, 3000, 3000)).toBe('timeout')
  })

  it('is no answer (0) when no status came before the bound, or without one', () => {
    expect(responseOutcome(0, 20, 3000)).toBe(0)
    expect(responseOutcome(0, 60_000, undefined)).toBe(0)
  })
})
