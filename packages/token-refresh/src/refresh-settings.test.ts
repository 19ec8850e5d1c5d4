import { describe, expect, it } from 'vitest'
import {
  DEFAULT_MAX_OUTAGE_WAIT_MS,
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_RETRY,
  leadProblem,
  resolveCdnSettings,
  resolveRefreshSettings,
} from './refresh-settings.ts'
import { pagePeers } from './token-peers.ts'

const getToken = () => Promise.reject(new Error('not called'))

describe('resolveRefreshSettings', () => {
  it('applies every default and turns seconds into ms', () => {
    const settings = resolveRefreshSettings({ getToken, refreshLeadSeconds: 60 })
    expect(settings).toMatchObject({
      ipBound: false,
      leadMs: 60_000,
      spreadMs: 15_000,
      retry: DEFAULT_RETRY,
      maxWaitMs: DEFAULT_MAX_WAIT_MS,
      maxOutageWaitMs: DEFAULT_MAX_OUTAGE_WAIT_MS,
      peers: pagePeers,
    })
  })

  it('keeps what the caller set, one retry bound at a time', () => {
    const settings = resolveRefreshSettings({
      getToken,
      refreshLeadSeconds: 10,
      refreshSpreadSeconds: 0,
      retry: { maxMs: 60_000 },
      peers: null,
      visibility: null,
    })
    expect(settings.spreadMs).toBe(0)
    expect(settings.retry).toEqual({ ...DEFAULT_RETRY, maxMs: 60_000 })
    expect(settings.peers).toBeNull()
    expect(settings.visibility).toBeNull()
  })

  it.each([
    [{ refreshLeadSeconds: 0 }, 'refreshLeadSeconds must be a number > 0, got 0'],
    [{ refreshLeadSeconds: 5, refreshSpreadSeconds: -1 }, 'refreshSpreadSeconds must be'],
  ])('refuses %o', (options, message) => {
    expect(() => resolveRefreshSettings({ getToken, ...options })).toThrow(message)
  })
})

describe('leadProblem', () => {
  it('is fatal at or above the lifetime, a warning outside 20–30 %, nothing inside', () => {
    expect(leadProblem(20, 20)).toEqual({
      fatal: true,
      message: 'refreshLeadSeconds (20) must be below the token lifetime (20 s)',
    })
    expect(leadProblem(2, 20)?.fatal).toBe(false)
    expect(leadProblem(4, 20)).toBeUndefined()
    expect(leadProblem(6, 20)).toBeUndefined()
    expect(leadProblem(7, 20)?.message).toContain('outside the recommended 20–30 %')
  })
})

describe('resolveCdnSettings', () => {
  it('applies CDN_FAILOVER_DEFAULTS and rejects a cooldown or timeout that is not > 0', () => {
    expect(resolveCdnSettings()).toMatchObject({ cooldownMs: 20_000, timeoutMs: 3000 })
    expect(resolveCdnSettings({ timeoutMs: 1500 }).timeoutMs).toBe(1500)
    for (const cdn of [{ cooldownMs: 0 }, { timeoutMs: -1 }, { timeoutMs: Number.NaN }])
      expect(() => resolveCdnSettings(cdn)).toThrow(RangeError)
  })
})
