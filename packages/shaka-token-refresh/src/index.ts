export {
  fetchToken,
  isStreamRefusal,
  type StreamLimitError,
  type TokenContext,
  type TokenRecord,
  TokenRefresher,
  type TokenRefreshOptions,
} from '@proj/token-refresh'
export { shakaClockSync } from './clock-sync.ts'
export { createTokenRefresh, type ShakaTokenRefresh } from './create-token-refresh.ts'
export {
  type CdnFailoverOnEngine,
  cdnFailover,
  type EngineAttempts,
  engineAttempts,
} from './engine-attempts.ts'
export { tokenRequestFilter } from './request-filter.ts'
export { recoveringRetryParameters, type TokenRecovery, tokenRecovery } from './retry-recovery.ts'
