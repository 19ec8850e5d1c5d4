export {
  fetchToken,
  type TokenRecord,
  TokenRefresher,
  type TokenRefreshOptions,
} from '@proj/token-refresh'
export { createTokenRefresh, type HlsTokenRefresh } from './create-token-refresh.ts'
export { recoveringPolicies } from './retry-policy.ts'
export { tokenLoader } from './token-loader.ts'
