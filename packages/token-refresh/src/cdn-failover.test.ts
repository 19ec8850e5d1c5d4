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

const setup = (ids: string[], probeAnswers: boolean[] = [], held = false) => {
  const time = fakeTime()
  const changes: CdnChange[] = []
  const probes: string[] = []
  /** With `held`, each probe waits until the test answers it here. */
  const answer: ((well: boolean) => void)[] = []
  const failover = createCdnFailover(ids, 20_000, {
    clock: time.clock,
    timers: time.timers,
    probe: async (id) => {
      probes.push(id)
      if (held) return new Promise<boolean>((resolve) => answer.push(resolve))
      return probeAnswers.shift() ?? false
    },
    changed: (change) => changes.push(change),
  })
  return { time, failover, changes, probes, answer }
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

  it('keeps the active CDN when a new record lists it, else the preferred when all cool', () => {
    const { failover, changes } = setup(['a', 'b', 'c'])
    failover.failed('a', 'timeout')
    failover.update(['a', 'b', 'c'])
    expect(failover.active).toBe('b')
    failover.failed('b', 'timeout')
    failover.update(['a', 'b'])
    expect(failover.active).toBe('a')
    expect(changes.at(-1)).toEqual({ from: 'c', to: 'a', reason: 'recovered' })
  })

  it('does not go back to the probed CDN while its probe runs', async () => {
    const { time, failover, changes, answer } = setup(['a', 'b'], [], true)
    failover.failed('a', 'refused')
    await time.advance(20_000)
    expect(answer).toHaveLength(1)
    // a is being probed, not known to be well: b's failure has nowhere to go
    expect(failover.failed('b', 'server-error')).toBe(false)
    expect(failover.active).toBe('b')
    answer[0]?.(false)
    await time.advance(0)
    expect(failover.failed('b', 'server-error')).toBe(false)
    expect(changes).toHaveLength(1)
  })

  it('puts a CDN on cooldown only when playback leaves it', async () => {
    const { time, failover, changes } = setup(['a', 'b'], [true])
    failover.failed('a', 'timeout')
    await time.advance(5000)
    // b fails while a cools: playback stays on b, and b has not been left
    expect(failover.failed('b', 'timeout')).toBe(false)
    await time.advance(15_000)
    expect(failover.active).toBe('a')
    // a new outage of a right after: b is there to take over
    expect(failover.failed('a', 'server-error')).toBe(true)
    expect(failover.active).toBe('b')
    expect(changes.map(({ to }) => to)).toEqual(['b', 'a', 'b'])
  })

  it('keeps one probe chain when a probe answers after a newer chain started', async () => {
    const { time, failover, probes, answer } = setup(['a', 'b'], [], true)
    failover.failed('a', 'timeout')
    await time.advance(20_000)
    expect(probes).toEqual(['a'])
    // while a is probed, a record makes c preferred; b fails, playback goes to c (no probe
    // needed), c fails after b cooled, playback goes to b: a new chain probes c
    failover.update(['c', 'a', 'b'])
    failover.failed('b', 'server-error')
    expect(failover.active).toBe('c')
    await time.advance(20_000)
    expect(failover.failed('c', 'server-error')).toBe(true)
    expect(failover.active).toBe('b')
    expect(time.pending).toBe(1)
    answer[0]?.(false)
    await time.advance(0)
    expect(time.pending).toBe(1)
    failover.stop()
    expect(time.pending).toBe(0)
  })

  it('falls back to the first CDN not cooling down when a record drops the active one', () => {
    const { failover, changes } = setup(['a', 'b', 'c'])
    failover.failed('a', 'timeout')
    failover.update(['a', 'c'])
    expect(failover.active).toBe('c')
    expect(changes.at(-1)).toEqual({ from: 'b', to: 'c', reason: 'recovered' })
  })
})
