import { isProtocolMessage, type MessageTarget } from '../protocol.ts'
import { cacheStore } from './record-store.ts'
import { RequestRewriter, type RequestRewriterOptions } from './request-rewriter.ts'

// The few service-worker globals used here, typed locally: the WebWorker lib cannot be loaded
// next to the DOM lib the page side needs.
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request
  readonly clientId: string
  readonly resultingClientId: string
  respondWith(response: Promise<Response>): void
}
interface ExtendableMessageEvent extends ExtendableEvent {
  readonly data: unknown
  readonly source: { id: string } | null
  readonly ports: readonly MessagePort[]
}
interface ServiceWorkerScope {
  clients: {
    get(id: string): Promise<(MessageTarget & { id: string }) | undefined>
    matchAll(options: { type: 'window' }): Promise<readonly (MessageTarget & { id: string })[]>
    claim(): Promise<void>
  }
  skipWaiting(): Promise<void>
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void
  addEventListener(type: 'message', listener: (event: ExtendableMessageEvent) => void): void
}

/** Options of {@link installTokenRefreshWorker}. */
export interface InstallOptions extends Partial<RequestRewriterOptions> {
  /**
   * Take over open pages at once (`skipWaiting` + `clients.claim()`), so the first visit is
   * protected. Default `true`; set `false` when your own worker manages its lifecycle.
   */
  claim?: boolean
}

/**
 * Installs the token rewriter in the current service worker: a `fetch` listener that answers
 * only requests carrying a `{token}/{expires}` pair, and a `message` listener for pages'
 * records. Call it once, synchronously, at the top level of your worker (listeners added later
 * miss events). Register it before your own `fetch` listeners so tokenised requests reach it.
 *
 * @example
 * ```ts
 * // sw.ts, your own service worker
 * import { installTokenRefreshWorker } from '@proj/sw-token-refresh/worker'
 * installTokenRefreshWorker()
 * ```
 */
export function installTokenRefreshWorker(options: InstallOptions = {}): RequestRewriter {
  const scope = globalThis as unknown as ServiceWorkerScope
  const rewriter = new RequestRewriter({
    clients: {
      get: (id) => (id ? scope.clients.get(id) : Promise.resolve(undefined)),
      matchAll: () => scope.clients.matchAll({ type: 'window' }),
    },
    store: cacheStore(),
    ...options,
  })
  if (options.claim !== false) {
    scope.addEventListener('install', (event) => event.waitUntil(scope.skipWaiting()))
    scope.addEventListener('activate', (event) => event.waitUntil(scope.clients.claim()))
  }
  scope.addEventListener('fetch', (event) => {
    const response = rewriter.handle(event.request, event.clientId || event.resultingClientId)
    if (response) event.respondWith(response)
  })
  scope.addEventListener('message', (event) => {
    const message = event.data
    if (isProtocolMessage(message))
      event.waitUntil(
        // a page loaded with a hard reload is not controlled until the worker claims it
        message.kind === 'token-refresh:claim'
          ? scope.clients.claim()
          : rewriter.receive(message, event.source?.id ?? '', event.ports[0]),
      )
  })
  return rewriter
}
