// Test wiring shared by the worker and page tests: a real RequestRewriter and real page
// connections (TokenRefreshWorker) joined by in-memory message passing, and a fake CDN fetch
// with the tests' one token check (tokenBook: 403 unknown, 410 expired). Not exported.
import { TokenRefresher } from '@proj/token-refresh'
import {
  type FakeBackend,
  type FakeTime,
  fakeTokenBackend,
  tokenBook,
} from '@proj/token-refresh/testing'
import { TokenRefreshWorker, type WorkerContainer } from '../src/page/worker-connection.ts'
import type { MessageTarget } from '../src/protocol.ts'
import { memoryStore, type RecordStore } from '../src/worker/record-store.ts'
import { RequestRewriter } from '../src/worker/request-rewriter.ts'

export interface Sent {
  url: string
  init: RequestInit | undefined
  status: number
}

/** A CDN as a `fetch`: accepts what `issue` registered, on the test's clock. */
export function fakeCdn(time: FakeTime) {
  const book = tokenBook(time.clock)
  const sent: Sent[] = []
  /** How many more cors requests fail as a CDN without CORS headers makes them fail. */
  let corsRefused = 0
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input)
    if (corsRefused > 0 && init?.mode === 'cors') {
      corsRefused--
      throw new TypeError('Failed to fetch (CORS)')
    }
    const status = book.verdict(url)
    sent.push({ url, init, status })
    return new Response(status === 200 ? 'media' : null, { status })
  }
  return {
    fetch,
    sent,
    issue: book.issue,
    revoke: book.revoke,
    rejectAll: book.rejectAll,
    /** Every cors request fails from now on, or the next `times` ones (an error page without CORS headers). */
    refuseCors: (times = Number.POSITIVE_INFINITY) => {
      corsRefused = times
    },
  }
}

/** A page (tab): its refreshers and its connection, reachable by the worker as a client. */
export interface FakePage extends MessageTarget {
  id: string
  connection: TokenRefreshWorker
  /** While `true` the page does not answer (a frozen tab). */
  frozen: boolean
  /** The token backend of each video opened, to make it fail. */
  backends: Map<string, FakeBackend>
  open(video: string, options?: { ipBound?: boolean }): Promise<TokenRefresher>
}

/** Joins pages and one worker; `restart()` replaces the worker as the browser does. */
export function fakeWorld(time: FakeTime, options: { store?: RecordStore } = {}) {
  const cdn = fakeCdn(time)
  const store = options.store ?? memoryStore()
  const pages = new Map<string, FakePage>()
  const makeWorker = () =>
    new RequestRewriter({
      clients: {
        get: async (id) => pages.get(id),
        matchAll: async () => [...pages.values()],
      },
      store,
      fetch: cdn.fetch,
      now: time.clock.now,
      askTimeoutMs: 50,
      refreshTimeoutMs: 200,
    })
  const world = {
    cdn,
    store,
    pages,
    worker: makeWorker(),
    restart() {
      world.worker = makeWorker()
    },
    page(id: string): FakePage {
      const handlers = new Set<(event: Event) => void>()
      const container = {
        get controller() {
          return {
            postMessage: (message: unknown, transfer: Transferable[] = []) =>
              void world.worker.receive(message as never, id, transfer[0] as MessagePort),
          }
        },
        addEventListener: (type: string, handler: (event: Event) => void) => {
          if (type === 'message') handlers.add(handler)
        },
        removeEventListener: (_: string, handler: (event: Event) => void) =>
          handlers.delete(handler),
        startMessages: () => undefined,
      } as unknown as WorkerContainer
      const page: FakePage = {
        id,
        frozen: false,
        backends: new Map(),
        connection: new TokenRefreshWorker(container),
        postMessage(message, transfer) {
          if (page.frozen) return
          for (const handler of handlers)
            handler({ data: message, ports: transfer } as unknown as Event)
        },
        async open(video, { ipBound = false } = {}) {
          const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20, video })
          page.backends.set(video, backend)
          const refresher = await TokenRefresher.create({
            getToken: async () => {
              const record = await backend.getToken()
              cdn.issue(record.token, record.expires)
              cdn.issue(record.token_ip, record.expires)
              return record
            },
            refreshLeadSeconds: 6,
            refreshSpreadSeconds: 0,
            peers: null,
            ipBound,
            clock: time.clock,
            timers: time.timers,
            visibility: null,
            onError: () => undefined,
          })
          await page.connection.protect(refresher)
          return refresher
        },
      }
      pages.set(id, page)
      return page
    },
  }
  return world
}

/**
 * A `<video>`'s request for `url` (native playback: no-cors, cookies, a Range header). Node's
 * `Request` cannot say who made it: `destination` (`video` for a media element) is set on top.
 */
export function mediaRequest(
  url: string,
  init: RequestInit = {},
  destination: RequestDestination = '',
) {
  const request = new Request(url, {
    mode: 'no-cors',
    credentials: 'include',
    headers: { range: 'bytes=0-' },
    ...init,
  })
  return destination
    ? Object.defineProperty(request, 'destination', { value: destination })
    : request
}

/**
 * Plays `url` through the world's worker as `clientId`'s media request: what the worker answers,
 * and the URLs it really sent (`path status`). `world` is read at each call (tests make a new one
 * per test).
 */
export const player =
  (world: () => ReturnType<typeof fakeWorld>) =>
  async (
    url: string,
    clientId = 'tab-1',
    init?: RequestInit,
    destination: RequestDestination = '',
  ) => {
    const { cdn, worker } = world()
    const before = cdn.sent.length
    const pending = worker.handle(mediaRequest(url, init, destination), clientId)
    const response = await pending
    return {
      handled: pending !== undefined,
      status: response?.status,
      sent: cdn.sent.slice(before).map((entry) => `${new URL(entry.url).pathname} ${entry.status}`),
      init: cdn.sent.at(-1)?.init,
    }
  }
