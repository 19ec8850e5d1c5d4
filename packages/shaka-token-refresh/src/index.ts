export {
  fetchToken,
  type TokenRecord,
  TokenRefresher,
  type TokenRefreshOptions,
} from '@proj/token-refresh'
export { type CdnFailoverOnEngine, cdnFailover } from './cdn-failover.ts'
export { shakaClockSync } from './clock-sync.ts'
export { createTokenRefresh, type ShakaTokenRefresh } from './create-token-refresh.ts'
export { tokenRequestFilter } from './request-filter.ts'
export { recoveringRetryParameters, type TokenRecovery, tokenRecovery } from './retry-recovery.ts'
