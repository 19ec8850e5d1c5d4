export {
  fetchToken,
  isStreamRefusal,
  type StreamLimitError,
  type TokenContext,
  type TokenRecord,
  TokenRefresher,
  type TokenRefreshOptions,
  TokenRejectedError,
} from '@proj/token-refresh'
export {
  createTokenRefresh,
  type DashjsTokenRefresh,
  type DashjsTokenRefreshOptions,
} from './create-token-refresh.ts'
export type { DashjsModule } from './dashjs-module.ts'
export { failOnTokenRejection, type TokenRejectedDashError } from './give-up.ts'
export {
  type RefusedRequest,
  type RequestAttempts,
  type RequestInterceptor,
  type ResponseInterceptor,
  requestAttempts,
} from './request-attempts.ts'
export { MIN_RETRY_ATTEMPTS, recoveringRetrySettings } from './retry-settings.ts'
