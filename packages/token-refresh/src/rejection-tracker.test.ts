import { describe, expect, it } from 'vitest'
import { DEAD_ON_ARRIVAL_MS, MAX_REJECTED_TOKENS, REFUSAL_RUN_MS } from './recovery.ts'
import { RejectionTracker } from './rejection-tracker.ts'

describe('RejectionTracker', () => {
  it('allows one refresh per refused token', () => {
    const rejections = new RejectionTracker()
    expect(rejections.refused('a', false, 403, 0)).toBe('refresh')
    expect(rejections.refused('a', false, 403, 10)).toBe('spent')
    expect(rejections.inARow).toBe(1)
  })

  it(`gives up once, at ${MAX_REJECTED_TOKENS} valid tokens refused in a row`, () => {
    const rejections = new RejectionTracker()
    let now = 0
    for (const token of ['a', 'b']) {
      expect(rejections.refused(token, false, 403, now)).toBe('refresh')
      now += 500
      rejections.replaced(token, now)
    }
    expect(rejections.refused('c', false, 403, now + 2_000)).toBe('give-up')
    expect(rejections.gaveUp).toBe(true)
    expect(rejections.refused('d', false, 403, now + 3_000)).toBe('spent')
  })

  it('a token replaced without a refusal, or an expired one refused, breaks or skips the run', () => {
    const rejections = new RejectionTracker()
    rejections.refused('a', false, 403, 0)
    rejections.replaced('a', 1)
    rejections.refused('b', false, 403, 2)
    rejections.replaced('b', 3)
    rejections.replaced('c', 4) // c was never refused
    expect(rejections.inARow).toBe(0)
    expect(rejections.refused('d', true, 403, 5)).toBe('refresh')
    expect(rejections.inARow).toBe(0)
  })

  it('a token that served for a while before its refusal starts a new run (hiccups hours apart never add up)', () => {
    const rejections = new RejectionTracker()
    let now = 0
    for (const token of ['a', 'b', 'c', 'd']) {
      expect(rejections.refused(token, false, 403, now + REFUSAL_RUN_MS + 1)).toBe('refresh')
      expect(rejections.inARow).toBe(1)
      now += REFUSAL_RUN_MS + 1
      rejections.replaced(token, now)
    }
    expect(rejections.gaveUp).toBe(false)
    // a CDN that refuses every token refuses the fresh ones at once: the run goes on
    expect(rejections.refused('e', false, 403, now + 1_000)).toBe('refresh')
    rejections.replaced('e', now + 1_500)
    expect(rejections.refused('f', false, 403, now + 2_000)).toBe('give-up')
  })

  it(`a 410 of a token that came in less than ${DEAD_ON_ARRIVAL_MS} ms before counts (expired at the CDN on arrival), a later one never`, () => {
    const rejections = new RejectionTracker()
    let now = 0
    rejections.replaced('', now) // token a comes in
    for (const token of ['a', 'b']) {
      expect(rejections.refused(token, false, 410, now + 1_000)).toBe('refresh')
      now += 1_500
      rejections.replaced(token, now)
    }
    expect(rejections.refused('c', false, 410, now + DEAD_ON_ARRIVAL_MS - 1)).toBe('give-up')
    // each refused as long after it came in: a clock slightly off, mended by each refresh
    const late = new RejectionTracker()
    let previous = ''
    for (const token of ['a', 'b', 'c', 'd']) {
      late.replaced(previous, now)
      expect(late.refused(token, false, 410, now + DEAD_ON_ARRIVAL_MS)).toBe('refresh')
      previous = token
      now += DEAD_ON_ARRIVAL_MS + 1
    }
    expect(late.inARow).toBe(0)
    expect(late.gaveUp).toBe(false)
  })
})
