import { describe, expect, it } from 'vitest'
import { CDN_HEALTH_DEFAULTS, CdnHealth } from './cdn-health.ts'

const setup = (ids = ['primary', 'b', 'c']) => {
  let clock = 1_000_000
  const health = new CdnHealth(ids, CDN_HEALTH_DEFAULTS, () => clock)
  return {
    health,
    advance: (ms: number) => {
      clock += ms
    },
  }
}

describe('CdnHealth', () => {
  it('serves the preferred CDN, and the next one while it has failed', () => {
    const { health } = setup()
    expect(health.serving()).toBe('primary')
    health.failed('primary', { failure: 'server-error', status: 503 })
    expect(health.serving()).toBe('b')
    health.failed('b', { failure: 'timeout' })
    expect(health.serving()).toBe('c')
    expect(health.view()).toEqual([
      // the words the player core uses too, and the status the CDN answered
      {
        id: 'primary',
        state: 'failed',
        failure: 'server-error',
        status: 503,
        failed_at: 1_000_000,
      },
      { id: 'b', state: 'failed', failure: 'timeout', failed_at: 1_000_000 },
      { id: 'c', state: 'healthy' },
    ])
  })

  it('takes a failed CDN back only after its cooldown and two good probes in a row', () => {
    const { health, advance } = setup()
    health.failed('primary', { failure: 'refused', status: 403 })
    health.probed('primary', undefined)
    health.probed('primary', undefined)
    // good probes within the cooldown do not end it
    advance(CDN_HEALTH_DEFAULTS.cooldownMs - 1)
    expect(health.serving()).toBe('b')
    advance(1)
    expect(health.serving()).toBe('primary')
  })

  it('starts the cooldown again at every failure, and counts good probes from the last one', () => {
    const { health, advance } = setup()
    health.failed('primary', { failure: 'server-error', status: 503 })
    advance(CDN_HEALTH_DEFAULTS.cooldownMs)
    health.probed('primary', undefined)
    health.probed('primary', { failure: 'server-error', status: 503 })
    health.probed('primary', undefined)
    advance(CDN_HEALTH_DEFAULTS.cooldownMs)
    // one good probe since the last failure: not yet
    expect(health.serving()).toBe('b')
    health.probed('primary', undefined)
    expect(health.serving()).toBe('primary')
  })

  it('when every CDN failed, serves the preferred one (it may be back first)', () => {
    const { health } = setup(['primary', 'b'])
    health.failed('primary', { failure: 'server-error', status: 503 })
    health.failed('b', { failure: 'server-error', status: 503 })
    expect(health.serving()).toBe('primary')
  })

  it('when every CDN failed, stays on the one sessions are on (its probe timed out, the other refuses)', () => {
    const { health } = setup(['primary', 'b'])
    health.failed('primary', { failure: 'refused', status: 403 })
    expect(health.serving()).toBe('b')
    health.failed('b', { failure: 'timeout' })
    expect(health.serving()).toBe('b')
  })

  it('skips a drained CDN whatever its health, and serves it again once undrained', () => {
    const { health } = setup()
    health.drain('primary', true)
    expect(health.serving()).toBe('b')
    expect(health.view()[0]).toEqual({ id: 'primary', state: 'drained' })
    health.drain('b', true)
    health.drain('c', true)
    // all drained: the preferred one rather than nothing
    expect(health.serving()).toBe('primary')
    health.drain('primary', false)
    health.drain('b', false)
    health.drain('c', false)
    expect(health.serving()).toBe('primary')
  })

  it('hands out one probe per CDN at a time, and at most one per interval', () => {
    const { health, advance } = setup()
    expect(health.claimProbe('primary')).toBe(true)
    expect(health.claimProbe('primary')).toBe(false)
    advance(CDN_HEALTH_DEFAULTS.probeIntervalMs)
    // still in flight
    expect(health.claimProbe('primary')).toBe(false)
    health.probed('primary', undefined)
    expect(health.claimProbe('primary')).toBe(true)
    health.probed('primary', { failure: 'timeout' })
    expect(health.claimProbe('primary')).toBe(false)
    expect(health.claimProbe('b')).toBe(true)
    expect(health.serving()).toBe('b')
  })

  it('never probes one CDN alone: there is nowhere else to go', () => {
    const { health } = setup(['primary'])
    expect(health.claimProbe('primary')).toBe(false)
  })

  it('refuses a CDN it does not know', () => {
    const { health } = setup()
    expect(health.has('x')).toBe(false)
    expect(() => health.failed('x', { failure: 'server-error', status: 503 })).toThrow(RangeError)
  })
})
