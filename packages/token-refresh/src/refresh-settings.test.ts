import { describe, expect, it } from 'vitest'
import {
  DEFAULT_MAX_OUTAGE_WAIT_MS,
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_RETRY,
  leadProblem,
  resolveCdnSettings,
  resolveRefreshSettings,
} from './refresh-settings.ts'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from './testing/index.ts'
import { pagePeers } from './token-peers.ts'
import { TokenRefresher } from './token-refresher.ts'
import type { TokenRefreshOptions } from './types.ts'

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
    [{ refreshLeadSeconds: 0 }, 'refreshLeadSeconds must be a number > 0 (below 2^31), got 0'],
    [{ refreshLeadSeconds: 5, refreshSpreadSeconds: -1 }, 'refreshSpreadSeconds must be'],
  ])('refuses %o', (options, message) => {
    expect(() => resolveRefreshSettings({ getToken, ...options })).toThrow(message)
  })
})

describe('resolveRefreshSettings, given what a careless page passes', () => {
  // a retry delay of 0 or NaN made a backoff of 0 or NaN ms: a failing backend was called in a
  // loop with no delay; each is now refused at creation, naming the bound
  it.each([
    [{ baseMs: 0 }, 'baseMs must be a number > 0 (below 2^31), got 0'],
    [{ maxMs: Number.NaN }, 'maxMs must be a number > 0 (below 2^31), got NaN'],
    [{ expiredMaxMs: -1 }, 'expiredMaxMs must be a number > 0 (below 2^31), got -1'],
    [
      { baseMs: Number.POSITIVE_INFINITY },
      'baseMs must be a number > 0 (below 2^31), got Infinity',
    ],
    [{ baseMs: 2 ** 31 }, 'baseMs must be a number > 0 (below 2^31), got 2147483648'],
  ])('refuses retry %o with a RangeError naming it', (retry, message) => {
    const given = { getToken, refreshLeadSeconds: 10, retry } as TokenRefreshOptions
    expect(() => resolveRefreshSettings(given)).toThrow(new RangeError(message))
  })

  it('refuses an explicit undefined and an Infinity cap too (in a page without TypeScript)', () => {
    for (const retry of [{ maxMs: undefined }, { expiredMaxMs: Number.POSITIVE_INFINITY }]) {
      const given = { getToken, refreshLeadSeconds: 10, retry } as unknown as TokenRefreshOptions
      expect(() => resolveRefreshSettings(given)).toThrow(RangeError)
    }
  })

  it('refuses a lead that is not a number', () => {
    const given = { getToken, refreshLeadSeconds: 'ten' } as unknown as TokenRefreshOptions
    expect(() => resolveRefreshSettings(given)).toThrow(/^refreshLeadSeconds must be a number > 0 /)
  })

  it('TokenRefresher.create refuses it before calling getToken (no backend hammered later)', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
    const options = { ...testRefreshOptions(time, backend.getToken), retry: { baseMs: 0 } }
    await expect(TokenRefresher.create(options)).rejects.toThrow(RangeError)
    expect(backend.calls).toBe(0)
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
  it('applies CDN_FAILOVER_DEFAULTS; a cooldown or timeout that is not > 0 is refused by name', () => {
    expect(resolveCdnSettings()).toMatchObject({ cooldownMs: 20_000, timeoutMs: 3000 })
    expect(resolveCdnSettings({ timeoutMs: 1500 }).timeoutMs).toBe(1500)
    const probe = async () => true
    expect(
      resolveRefreshSettings({ getToken, refreshLeadSeconds: 5, cdn: { probe } }).cdn.probe,
    ).toBe(probe)
    for (const [cdn, message] of [
      [{ cooldownMs: 0 }, 'cooldownMs must be a number > 0 (below 2^31), got 0'],
      [{ timeoutMs: -1 }, 'timeoutMs must be a number > 0 (below 2^31), got -1'],
      [{ timeoutMs: Number.NaN }, 'timeoutMs must be a number > 0 (below 2^31), got NaN'],
      // past what a timer holds it fires at once: a probe loop with no delay
      [{ cooldownMs: 2 ** 32 }, 'cooldownMs must be a number > 0 (below 2^31), got 4294967296'],
    ] as const)
      expect(() => resolveRefreshSettings({ getToken, refreshLeadSeconds: 5, cdn })).toThrow(
        new RangeError(message),
      )
  })
})
