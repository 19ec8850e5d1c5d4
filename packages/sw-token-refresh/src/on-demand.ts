// `@proj/sw-token-refresh/on-demand`: what a player package hands its pages without making them
// download the native protection before they ask for it.
import type { RegisterOptions } from './page/register-worker.ts'
import type { TokenRefreshWorker } from './page/worker-connection.ts'

export type { RegisterOptions } from './page/register-worker.ts'
export type { TokenRefreshWorker } from './page/worker-connection.ts'

/**
 * `registerTokenRefreshWorker` once this package's main module is in: the module native playback
 * loads on demand anyway (`import('@proj/sw-token-refresh')`), so a page that never asks for the
 * worker never downloads it. The hls.js and video.js packages export it as their own.
 *
 * @throws ServiceWorkerUnavailableError (the promise rejects) as `registerTokenRefreshWorker` says.
 * @example
 * ```ts
 * const worker = registerTokenRefreshWorker({ url: '/token-refresh-sw.js' })
 * ```
 */
export function registerTokenRefreshWorker(options?: RegisterOptions): Promise<TokenRefreshWorker> {
  return import('./index.ts').then((native) => native.registerTokenRefreshWorker(options))
}
