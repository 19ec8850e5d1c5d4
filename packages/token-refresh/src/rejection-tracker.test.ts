import { describe, expect, it } from 'vitest'
import { MAX_REJECTED_TOKENS, REFUSAL_RUN_MS } from './recovery.ts'
import { RejectionTracker } from './rejection-tracker.ts'

const valid = (now: number) => ({ expired: false, now })

describe('RejectionTracker', () => {
  it('allows one refresh per refused token', () => {
    const rejections = new RejectionTracker()
    expect(rejections.refused('a', valid(0))).toBe('refresh')
    expect(rejections.refused('a', valid(10))).toBe('spent')
    expect(rejections.inARow).toBe(1)
  })

  it(`gives up once, at ${MAX_REJECTED_TOKENS} valid tokens refused in a row`, () => {
    const rejections = new RejectionTracker()
    let now = 0
    for (const token of ['a', 'b']) {
      expect(rejections.refused(token, valid(now))).toBe('refresh')
      now += 500
      rejections.replaced(token, now)
    }
    expect(rejections.refused('c', valid(now + 2_000))).toBe('give-up')
    expect(rejections.gaveUp).toBe(true)
    expect(rejections.refused('d', valid(now + 3_000))).toBe('spent')
  })

  it('a token replaced without a refusal, or an expired one refused, breaks or skips the run', () => {
    const rejections = new RejectionTracker()
    rejections.refused('a', valid(0))
    rejections.replaced('a', 1)
    rejections.refused('b', valid(2))
    rejections.replaced('b', 3)
    rejections.replaced('c', 4) // c was never refused
    expect(rejections.inARow).toBe(0)
    expect(rejections.refused('d', { expired: true, now: 5 })).toBe('refresh')
    expect(rejections.inARow).toBe(0)
  })

  it('a token that served for a while before its refusal starts a new run (hiccups hours apart never add up)', () => {
    const rejections = new RejectionTracker()
    let now = 0
    for (const token of ['a', 'b', 'c', 'd']) {
      expect(rejections.refused(token, valid(now + REFUSAL_RUN_MS + 1))).toBe('refresh')
      expect(rejections.inARow).toBe(1)
      now += REFUSAL_RUN_MS + 1
      rejections.replaced(token, now)
    }
    expect(rejections.gaveUp).toBe(false)
    // a CDN that refuses every token refuses the fresh ones at once: the run goes on
    expect(rejections.refused('e', valid(now + 1_000))).toBe('refresh')
    rejections.replaced('e', now + 1_500)
    expect(rejections.refused('f', valid(now + 2_000))).toBe('give-up')
  })
})
