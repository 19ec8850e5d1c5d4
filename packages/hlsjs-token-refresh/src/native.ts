import type { RegisterOptions, TokenRefreshWorker } from '@proj/sw-token-refresh'

export type {
  NativeProtection,
  NativeProtectionOptions,
  RegisterOptions,
  TokenRefreshWorker,
} from '@proj/sw-token-refresh'

/**
 * `@proj/sw-token-refresh`'s `registerTokenRefreshWorker`, from this package: registers the
 * token refresh service worker once the native protection (`@proj/sw-token-refresh`, a module
 * of its own, which native playback loads anyway) is in. A page that never asks for the worker
 * never downloads it.
 *
 * @throws ServiceWorkerUnavailableError (the promise rejects) as `@proj/sw-token-refresh` says.
 * @example
 * ```ts
 * const worker = registerTokenRefreshWorker({ url: '/token-refresh-sw.js' })
 * ```
 */
export function registerTokenRefreshWorker(options?: RegisterOptions): Promise<TokenRefreshWorker> {
  return import('@proj/sw-token-refresh').then((native) =>
    native.registerTokenRefreshWorker(options),
  )
}
