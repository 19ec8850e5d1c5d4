export {
  fetchToken,
  type TokenRecord,
  TokenRefresher,
  type TokenRefreshOptions,
  TokenRejectedError,
} from '@proj/token-refresh'
export {
  createTokenRefresh,
  type HlsTokenRefresh,
  type HlsTokenRefreshOptions,
} from './create-token-refresh.ts'
export type { HlsClass } from './hls-class.ts'
export {
  type NativeProtection,
  type NativeProtectionOptions,
  type RegisterOptions,
  registerTokenRefreshWorker,
  type TokenRefreshWorker,
} from './native.ts'
export { recoveringPolicies } from './retry-policy.ts'
export { type LoaderClass, tokenLoader } from './token-loader.ts'
