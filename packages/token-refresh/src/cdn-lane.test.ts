import { describe, expect, it } from 'vitest'
import { createCdnLane } from './cdn-lane.ts'
import { fakeTime } from './testing/index.ts'
import type { CdnChange } from './types.ts'

/** A lane of `ids` with a 20-s cooldown; its probes never time out unless `timeoutMs` says. */
const setup = (ids: string[], probeAnswers: boolean[] = [], held = false, timeoutMs = 1e9) => {
  const time = fakeTime()
  const changes: CdnChange[] = []
  const probes: string[] = []
  /** With `held`, each probe waits until the test answers it here. */
  const answer: ((well: boolean) => void)[] = []
  /** The signal of each probe. */
  const signals: AbortSignal[] = []
  const lane = createCdnLane(
    ids,
    { cooldownMs: 20_000, timeoutMs },
    {
      clock: time.clock,
      timers: time.timers,
      probe: async (id, signal) => {
        signals.push(signal)
        probes.push(id)
        if (held) return new Promise<boolean>((resolve) => answer.push(resolve))
        return probeAnswers.shift() ?? false
      },
      changed: (change) => changes.push(change),
    },
  )
  return { time, lane, changes, probes, answer, signals }
}

describe('createCdnLane', () => {
  it('starts on the preferred CDN and moves to the next one on a failure of the active one', () => {
    const { lane, changes } = setup(['a', 'b', 'c'])
    expect(lane.active).toBe('a')
    expect(lane.failed('a', 'timeout')).toBe(true)
    expect(lane.active).toBe('b')
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'timeout' }])
  })

  it('does not move again for late failures of the CDN already left', () => {
    const { lane, changes } = setup(['a', 'b'])
    lane.failed('a', 'server-error')
    expect(lane.failed('a', 'server-error')).toBe(true)
    expect(lane.failed('a', 'refused')).toBe(true)
    expect(lane.active).toBe('b')
    expect(changes).toHaveLength(1)
  })

  it('skips CDNs cooling down, and stays put when every other CDN is', () => {
    const { lane } = setup(['a', 'b', 'c'])
    lane.failed('a', 'timeout')
    lane.failed('b', 'timeout')
    expect(lane.active).toBe('c')
    expect(lane.failed('c', 'network')).toBe(false)
    expect(lane.active).toBe('c')
  })

  it('ignores CDNs it does not know and everything once stopped', () => {
    const { lane } = setup(['a', 'b'])
    expect(lane.failed('x', 'timeout')).toBe(false)
    lane.stop()
    expect(lane.failed('a', 'timeout')).toBe(false)
    expect(lane.active).toBe('a')
  })

  it('probes the preferred CDN a cooldown after leaving it, again after a failed probe', async () => {
    const { time, lane, changes, probes } = setup(['a', 'b'], [false, true])
    lane.failed('a', 'timeout')
    await time.advance(19_999)
    expect(probes).toEqual([])
    await time.advance(1)
    expect(probes).toEqual(['a'])
    expect(lane.active).toBe('b')
    await time.advance(19_999)
    expect(probes).toEqual(['a'])
    await time.advance(1)
    expect(lane.active).toBe('a')
    expect(changes.at(-1)).toEqual({ from: 'b', to: 'a', reason: 'recovered' })
    await time.advance(60_000)
    expect(probes).toHaveLength(2)
    expect(time.pending).toBe(0)
  })

  it('keeps the active CDN when a new record lists it, else the preferred when all cool', () => {
    const { lane, changes } = setup(['a', 'b', 'c'])
    lane.failed('a', 'timeout')
    lane.update(['a', 'b', 'c'])
    expect(lane.active).toBe('b')
    lane.failed('b', 'timeout')
    lane.update(['a', 'b'])
    expect(lane.active).toBe('a')
    expect(changes.at(-1)).toEqual({ from: 'c', to: 'a', reason: 'recovered' })
  })

  it('does not go back to the probed CDN while its probe runs', async () => {
    const { time, lane, changes, answer } = setup(['a', 'b'], [], true)
    lane.failed('a', 'refused')
    await time.advance(20_000)
    expect(answer).toHaveLength(1)
    // a is being probed, not known to be well: b's failure has nowhere to go
    expect(lane.failed('b', 'server-error')).toBe(false)
    expect(lane.active).toBe('b')
    answer[0]?.(false)
    await time.advance(0)
    expect(lane.failed('b', 'server-error')).toBe(false)
    expect(changes).toHaveLength(1)
  })

  it('puts a CDN on cooldown only when playback leaves it', async () => {
    const { time, lane, changes } = setup(['a', 'b'], [true])
    lane.failed('a', 'timeout')
    await time.advance(5000)
    // b fails while a cools: playback stays on b, and b has not been left
    expect(lane.failed('b', 'timeout')).toBe(false)
    await time.advance(15_000)
    expect(lane.active).toBe('a')
    // a new outage of a right after: b is there to take over
    expect(lane.failed('a', 'server-error')).toBe(true)
    expect(lane.active).toBe('b')
    expect(changes.map(({ to }) => to)).toEqual(['b', 'a', 'b'])
  })

  it('keeps one probe chain when a probe answers after a newer chain started', async () => {
    const { time, lane, probes, answer } = setup(['a', 'b'], [], true)
    lane.failed('a', 'timeout')
    await time.advance(20_000)
    expect(probes).toEqual(['a'])
    // while a is probed, a record makes c preferred; b fails, playback goes to c (no probe
    // needed), c fails after b cooled, playback goes to b: a new chain probes c
    lane.update(['c', 'a', 'b'])
    lane.failed('b', 'server-error')
    expect(lane.active).toBe('c')
    await time.advance(20_000)
    expect(lane.failed('c', 'server-error')).toBe(true)
    expect(lane.active).toBe('b')
    // the new chain's timer, and the timeout of the probe still running
    expect(time.pending).toBe(2)
    answer[0]?.(false)
    await time.advance(0)
    expect(time.pending).toBe(1)
    lane.stop()
    expect(time.pending).toBe(0)
  })

  it('falls back to the first CDN not cooling down when a record drops the active one', () => {
    const { lane, changes } = setup(['a', 'b', 'c'])
    lane.failed('a', 'timeout')
    lane.update(['a', 'c'])
    expect(lane.active).toBe('c')
    expect(changes.at(-1)).toEqual({ from: 'b', to: 'c', reason: 'recovered' })
  })

  it('counts a probe that does not answer within timeoutMs as failed, and aborts it', async () => {
    const { time, lane, probes, signals } = setup(['a', 'b'], [], true, 3000)
    lane.failed('a', 'timeout')
    await time.advance(20_000)
    expect(probes).toEqual(['a'])
    await time.advance(2999)
    expect(signals[0]?.aborted).toBe(false)
    await time.advance(1)
    expect(signals[0]?.aborted).toBe(true)
    expect(lane.active).toBe('b')
    await time.advance(20_000) // a cooldown after the failed probe: the next one
    expect(probes).toEqual(['a', 'a'])
  })

  it('ends a running probe, its timer and its request, when stopped', async () => {
    const { time, lane, signals } = setup(['a', 'b'], [], true, 3000)
    lane.failed('a', 'timeout')
    await time.advance(20_000)
    expect(signals[0]?.aborted).toBe(false)
    lane.stop()
    expect(signals[0]?.aborted).toBe(true)
    expect(time.pending).toBe(0)
  })

  it('tells its CDNs and its timeout', () => {
    const { lane } = setup(['a', 'b', 'c'], [], false, 2500)
    expect([lane.ids, lane.timeoutMs, lane.preferred]).toEqual([['a', 'b', 'c'], 2500, 'a'])
    lane.update(['c', 'a'])
    expect(lane.ids).toEqual(['c', 'a'])
  })
})
