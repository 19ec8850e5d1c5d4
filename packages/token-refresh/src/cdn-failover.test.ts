import { describe, expect, it } from 'vitest'
import { type CdnChange, classifyCdnFailure, createCdnFailover } from './cdn-failover.ts'
import { fakeTime } from './testing/index.ts'

describe('classifyCdnFailure', () => {
  it.each([
    [403, true, 'refused'],
    [410, true, 'refused'],
    [403, false, undefined],
    [410, false, undefined],
    [500, true, 'server-error'],
    [503, false, 'server-error'],
    [599, true, 'server-error'],
    [0, true, 'network'],
    [0, false, 'network'],
    [404, true, undefined],
    [200, true, undefined],
    [206, true, undefined],
    [429, true, undefined],
    [600, true, undefined],
  ] as const)('status %i with a fresh token %s -> %s', (status, fresh, failure) => {
    expect(classifyCdnFailure(status, fresh)).toBe(failure)
  })
})

const setup = (ids: string[], probeAnswers: boolean[] = []) => {
  const time = fakeTime()
  const changes: CdnChange[] = []
  const probes: string[] = []
  const failover = createCdnFailover(ids, 20_000, {
    clock: time.clock,
    timers: time.timers,
    probe: async (id) => {
      probes.push(id)
      return probeAnswers.shift() ?? false
    },
    changed: (change) => changes.push(change),
  })
  return { time, failover, changes, probes }
}

describe('createCdnFailover', () => {
  it('starts on the preferred CDN and moves to the next one on a failure of the active one', () => {
    const { failover, changes } = setup(['a', 'b', 'c'])
    expect(failover.active).toBe('a')
    expect(failover.failed('a', 'timeout')).toBe(true)
    expect(failover.active).toBe('b')
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'timeout' }])
  })

  it('does not move again for late failures of the CDN already left', () => {
    const { failover, changes } = setup(['a', 'b'])
    failover.failed('a', 'server-error')
    expect(failover.failed('a', 'server-error')).toBe(true)
    expect(failover.failed('a', 'refused')).toBe(true)
    expect(failover.active).toBe('b')
    expect(changes).toHaveLength(1)
  })

  it('skips CDNs cooling down, and stays put when every other CDN is', () => {
    const { failover } = setup(['a', 'b', 'c'])
    failover.failed('a', 'timeout')
    failover.failed('b', 'timeout')
    expect(failover.active).toBe('c')
    expect(failover.failed('c', 'network')).toBe(false)
    expect(failover.active).toBe('c')
  })

  it('ignores CDNs it does not know and everything once stopped', () => {
    const { failover } = setup(['a', 'b'])
    expect(failover.failed('x', 'timeout')).toBe(false)
    failover.stop()
    expect(failover.failed('a', 'timeout')).toBe(false)
    expect(failover.active).toBe('a')
  })

  it('probes the preferred CDN a cooldown after leaving it, again after a failed probe', async () => {
    const { time, failover, changes, probes } = setup(['a', 'b'], [false, true])
    failover.failed('a', 'timeout')
    await time.advance(19_999)
    expect(probes).toEqual([])
    await time.advance(1)
    expect(probes).toEqual(['a'])
    expect(failover.active).toBe('b')
    await time.advance(19_999)
    expect(probes).toEqual(['a'])
    await time.advance(1)
    expect(failover.active).toBe('a')
    expect(changes.at(-1)).toEqual({ from: 'b', to: 'a', reason: 'recovered' })
    await time.advance(60_000)
    expect(probes).toHaveLength(2)
    expect(time.pending).toBe(0)
  })

  it('keeps the active CDN when a new record lists it, else falls back to the preferred', () => {
    const { failover, changes } = setup(['a', 'b'])
    failover.failed('a', 'timeout')
    failover.update(['a', 'b'])
    expect(failover.active).toBe('b')
    failover.update(['a', 'c'])
    expect(failover.active).toBe('a')
    expect(changes.at(-1)).toEqual({ from: 'b', to: 'a', reason: 'recovered' })
  })
})
