import type { TokenRecord, TokenRefreshOptions } from '../types.ts'
import type { FakeTime } from './fake-time.ts'

/**
 * The options tests create a refresher with: 6-second lead, the fake clock and timers, no
 * page visibility, failures swallowed (the tests check them themselves).
 *
 * @example
 * ```ts
 * const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
 * ```
 */
export const testRefreshOptions = (
  time: FakeTime,
  getToken: () => Promise<TokenRecord>,
): TokenRefreshOptions => ({
  getToken,
  refreshLeadSeconds: 6,
  clock: time.clock,
  timers: time.timers,
  visibility: null,
  onError: () => undefined,
})
