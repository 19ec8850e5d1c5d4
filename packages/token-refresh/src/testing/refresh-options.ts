import type { TokenRefreshOptions } from '../types.ts'
import type { FakeTime } from './fake-time.ts'

/**
 * The options tests create a refresher with: 6-second lead refreshed exactly at the lead time
 * (no spread), alone (no page-wide peers), the fake clock and timers, no page visibility,
 * failures swallowed (the tests check them themselves).
 *
 * @example
 * ```ts
 * const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
 * ```
 */
export function testRefreshOptions(
  time: FakeTime,
  getToken: TokenRefreshOptions['getToken'],
): TokenRefreshOptions {
  return {
    getToken,
    refreshLeadSeconds: 6,
    // exact timing (refresh at the lead time) and no sharing with other tests' refreshers
    refreshSpreadSeconds: 0,
    peers: null,
    clock: time.clock,
    timers: time.timers,
    visibility: null,
    onError: () => undefined,
  }
}
