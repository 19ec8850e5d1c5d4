// loads the native protection on demand: pages that never ask for the worker never download it
export {
  type RegisterOptions,
  registerTokenRefreshWorker,
  type TokenRefreshWorker,
} from '@proj/sw-token-refresh/on-demand'
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
  type HlsTokenRefresh,
  type HlsTokenRefreshOptions,
} from './create-token-refresh.ts'
export type { HlsClass } from './hls-class.ts'
export { recoveringPolicies } from './retry-policy.ts'
export { type LoaderClass, tokenLoader } from './token-loader.ts'
