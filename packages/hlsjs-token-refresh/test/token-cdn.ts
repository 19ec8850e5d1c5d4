// What the package's unit tests share: each test gets a fresh fake clock, a token backend issuing
// 20-s tokens on it, and the tiny token-checking CDN, closed after the test.
import type { TokenRefreshOptions } from '@proj/token-refresh'
import {
  type FakeBackend,
  type FakeTime,
  fakeTime,
  fakeTokenBackend,
  testRefreshOptions,
  tinyCdn,
} from '@proj/token-refresh/testing'
import { afterEach, beforeEach } from 'vitest'

/** The current test's clock, backend and CDN (replaced before each test). */
export interface TokenCdn {
  time: FakeTime
  backend: FakeBackend
  cdn: Awaited<ReturnType<typeof tinyCdn>>
  /** The refresh options of a test: the fake clock, tokens from the backend as the CDN knows them. */
  options(): TokenRefreshOptions
}

/**
 * Registers the hooks that give each test of the file a fresh {@link TokenCdn}; call it at the
 * top of the file, before the file's own hooks (whose `afterEach` then runs before the CDN closes).
 *
 * @example
 * const env = useTokenCdn()
 * it('refreshes', async () => {
 *   const refresher = await TokenRefresher.create(env.options())
 *   await env.time.advance(14_000)
 * })
 */
export function useTokenCdn(): TokenCdn {
  const env = {
    options: () => testRefreshOptions(env.time, env.cdn.issuing(env.backend.getToken)),
  } as TokenCdn
  beforeEach(async () => {
    env.time = fakeTime()
    env.backend = fakeTokenBackend({ clock: env.time.clock, lifetime: 20 })
    env.cdn = await tinyCdn(env.time.clock)
  })
  afterEach(() => env.cdn.close())
  return env
}
