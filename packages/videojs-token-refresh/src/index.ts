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
} from '@proj/token-refresh'
export {
  HLS_TYPE,
  TokenRefreshPlugin,
  type TokenRefreshPluginOptions,
  techOptions,
  VHS_TECH_OPTIONS,
} from './plugin.ts'
export { prepareTokenRefresh, type TokenRefreshPlayerOptions } from './prepare.ts'
export { registerTokenRefresh, tokenRefreshOf } from './register.ts'
export { installVhsHooks, type VhsXhr } from './vhs-hooks.ts'
