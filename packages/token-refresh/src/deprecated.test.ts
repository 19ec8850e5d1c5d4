import { describe, expect, it } from 'vitest'
import { createCdnFailover } from './cdn-lane.ts'
import { classifyCdnFailure, isTokenRejection } from './deprecated.ts'
import { fakeTime } from './testing/index.ts'
import type { CdnChange } from './types.ts'

// The names kept for code written against earlier versions: each still answers as it did.
describe('deprecated names', () => {
  it.each([
    [403, true, 'refused'],
    [410, false, undefined],
    [503, false, 'server-error'],
    [0, true, 'network'],
    [404, true, undefined],
  ] as const)('classifyCdnFailure(%i, fresh %s) is %s', (status, fresh, failure) => {
    expect(classifyCdnFailure(status, fresh)).toBe(failure)
  })

  it('isTokenRejection: 403 and 410 only', () => {
    expect([403, 410, 401, 404, 500, undefined].map(isTokenRejection)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ])
  })

  it('createCdnFailover: the lane, its owner-run probe unbounded in time', async () => {
    const time = fakeTime()
    const changes: CdnChange[] = []
    let answer: (well: boolean) => void = () => undefined
    const failover = createCdnFailover(['a', 'b'], 20_000, {
      clock: time.clock,
      timers: time.timers,
      probe: () => new Promise((resolve) => (answer = resolve)),
      changed: (change) => changes.push(change),
    })
    expect(failover.failed('a', 'server-error')).toBe(true)
    await time.advance(20_000 + 60_000) // the probe takes a minute: not cut short
    answer(true)
    await time.advance(0)
    expect(changes.map(({ to }) => to)).toEqual(['b', 'a'])
    failover.stop()
  })
})
