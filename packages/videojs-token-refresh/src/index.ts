export {
  fetchToken,
  type TokenRecord,
  TokenRefresher,
  type TokenRefreshOptions,
} from '@proj/token-refresh'
export {
  type NativeProtection,
  type NativeProtectionOptions,
  type RegisterOptions,
  registerTokenRefreshWorker,
  type TokenRefreshWorker,
} from './native.ts'
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
