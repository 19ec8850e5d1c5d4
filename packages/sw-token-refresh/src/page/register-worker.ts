import { TokenRefreshWorker, type WorkerContainer } from './worker-connection.ts'

/** Why the service worker cannot protect this page; the source swap takes over. */
export class ServiceWorkerUnavailableError extends Error {
  override name = 'ServiceWorkerUnavailableError'
}

/** Options of {@link registerTokenRefreshWorker}. */
export interface RegisterOptions {
  /** The worker script, same origin as the page. Default `/token-refresh-sw.js`. */
  url?: string
  /** Its scope (default: the script's folder, so `/` for a script at the site root). */
  scope?: string
  /** How long to wait for the page to be controlled (ms). Default 10000. */
  timeoutMs?: number
  /** For tests: `navigator.serviceWorker`. */
  container?: ServiceWorkerContainer
}

const connections = new WeakMap<object, Promise<TokenRefreshWorker>>()

const controlled = (container: WorkerContainer, timeoutMs: number) =>
  new Promise<boolean>((resolve) => {
    if (container.controller) return resolve(true)
    const timer = setTimeout(() => resolve(false), timeoutMs)
    container.addEventListener(
      'controllerchange',
      () => {
        clearTimeout(timer)
        resolve(true)
      },
      { once: true },
    )
  })

/**
 * Registers the token refresh service worker and resolves once it controls this page (on a
 * first visit it claims the page; after a hard reload it is asked to), so the URL handed to the
 * `<video>` afterwards is seen by it. Called again, it returns the same connection.
 *
 * @throws ServiceWorkerUnavailableError when the browser has no service workers, the page is
 * not a secure context, registration fails or the page stays uncontrolled: use the swap then.
 * @example
 * ```ts
 * const worker = registerTokenRefreshWorker({ url: '/token-refresh-sw.js' })
 * const protection = await protectNativePlayback(video, refresher, { worker })
 * ```
 */
export function registerTokenRefreshWorker(
  options: RegisterOptions = {},
): Promise<TokenRefreshWorker> {
  // no navigator at all outside browsers (server-side rendering)
  const container: ServiceWorkerContainer | undefined =
    options.container ?? globalThis.navigator?.serviceWorker
  if (!container)
    return Promise.reject(
      new ServiceWorkerUnavailableError(
        'this browser offers no service workers here (none at all, or not a secure context: https or localhost)',
      ),
    )
  const known = connections.get(container)
  if (known) return known
  const url = options.url ?? '/token-refresh-sw.js'
  const connecting = (async () => {
    let registration: ServiceWorkerRegistration
    try {
      registration = await container.register(url, options.scope ? { scope: options.scope } : {})
    } catch (error) {
      throw new ServiceWorkerUnavailableError(`registering ${url} failed: ${String(error)}`)
    }
    // A hard reload bypasses an active worker until it claims the page; on a first visit the
    // worker claims it itself once activated.
    if (!container.controller) registration.active?.postMessage({ kind: 'token-refresh:claim' })
    const timeoutMs = options.timeoutMs ?? 10_000
    if (!(await controlled(container, timeoutMs)))
      throw new ServiceWorkerUnavailableError(
        `${url} did not take control of this page within ${timeoutMs} ms (is the page inside its scope?)`,
      )
    return new TokenRefreshWorker(container)
  })()
  connections.set(container, connecting)
  connecting.catch(() => connections.delete(container))
  return connecting
}
