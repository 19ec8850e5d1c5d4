import { describe, expect, it } from 'vitest'
import { MAX_REJECTED_TOKENS } from './recovery.ts'
import { RejectionTracker } from './rejection-tracker.ts'

describe('RejectionTracker', () => {
  it('allows one refresh per refused token', () => {
    const rejections = new RejectionTracker()
    expect(rejections.refused('a', false)).toBe('refresh')
    expect(rejections.refused('a', false)).toBe('spent')
    expect(rejections.inARow).toBe(1)
  })

  it(`gives up once, at ${MAX_REJECTED_TOKENS} valid tokens refused in a row`, () => {
    const rejections = new RejectionTracker()
    for (const token of ['a', 'b']) {
      expect(rejections.refused(token, false)).toBe('refresh')
      rejections.replaced(token)
    }
    expect(rejections.refused('c', false)).toBe('give-up')
    expect(rejections.gaveUp).toBe(true)
    expect(rejections.refused('d', false)).toBe('spent')
  })

  it('a token replaced without a refusal, or an expired one refused, breaks or skips the run', () => {
    const rejections = new RejectionTracker()
    rejections.refused('a', false)
    rejections.replaced('a')
    rejections.refused('b', false)
    rejections.replaced('b')
    rejections.replaced('c') // c was never refused
    expect(rejections.inARow).toBe(0)
    expect(rejections.refused('d', true)).toBe('refresh')
    expect(rejections.inARow).toBe(0)
  })
})
