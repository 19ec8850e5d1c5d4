import { findTokenPair } from '@proj/signing/url'
import { CDN_FAILOVER_DEFAULTS, type Timers } from '@proj/token-refresh'
import { isPlaylist, type PageMessage, type WorkerQuestion } from '../protocol.ts'
import { PageQuestions, type WorkerClients } from './page-questions.ts'
import type { RecordStore } from './record-store.ts'
import { RequestSender } from './request-sender.ts'
import { type Slot, VideoSlots } from './video-slots.ts'

export type { WorkerClients } from './page-questions.ts'

/** Options of {@link RequestRewriter}: everything it touches is injected. */
export interface RequestRewriterOptions {
  clients: WorkerClients
  /** A copy of the records that survives a restart of the worker. */
  store?: RecordStore
  fetch?: typeof fetch
  now?: () => number
  /** How long a request waits for a page to say which records it holds (ms). Default 1000. */
  askTimeoutMs?: number
  /** How long a request waits for a page's refresh (ms). Default 8000. */
  refreshTimeoutMs?: number
  /**
   * Once the token has expired (a token backend outage longer than its life), how long a request
   * is held for the next record before it leaves anyway (ms). Default 120000. A native player
   * turns the CDN's 410 into a fatal error, so waiting (a stall) is the better failure.
   */
  outageHoldMs?: number
  /** Timers of the multi-CDN timeout and probes (`setTimeout`/`clearTimeout` by default). */
  timers?: Timers
  /**
   * With several CDNs: how long a failed CDN is left before a probe may bring requests back
   * (ms), and the time to first byte after which an attempt goes to the next CDN (ms; a page's
   * `cdnTimeoutMs` wins). Defaults in `CDN_FAILOVER_DEFAULTS`.
   */
  cdn?: { cooldownMs?: number; timeoutMs?: number }
}

const ELEMENT_DESTINATIONS = new Set(['audio', 'video', 'track'])

/**
 * The service worker's logic, free of the service-worker globals so tests can drive it: moves
 * each request of a protected video onto the current `{token}/{expires}` pair and host (the
 * core's rewrite rules), keeping method, headers (`Range`), credentials and the abort signal. It
 * coordinates three parts:
 *
 * - the records pages push ({@link VideoSlots}: the newest per video wins, several tabs; a
 *   persisted copy for a restarted worker; each video's CDN lane with several CDNs);
 * - the questions to pages ({@link PageQuestions}): a request for a tokenised URL that matches no
 *   record first reads the persisted copy, then asks the pages, and only then goes out
 *   unchanged; inside the lead window the owning page refreshes first (bounded); once the token
 *   has expired (a backend outage) the request is held until the next record arrives (up to
 *   `outageHoldMs`): a native player would turn the 410 into a fatal error;
 * - the sending ({@link RequestSender}): each request one of the core's attempts, the same as
 *   every player adapter's (with several CDNs a failure of the CDN goes at once to the next CDN
 *   with that CDN's token, and the video's requests stay there until a probe of the preferred
 *   CDN, a cooldown later, succeeds); a 403/410 asks the page to recover and is sent again once.
 *
 * A request already on a newer pair than the worker's (a player with hooks) goes out as is. It
 * stores no media and touches no request without a token pair of a known video.
 *
 * @example
 * ```ts
 * const rewriter = new RequestRewriter({ clients: { get: (id) => self.clients.get(id), matchAll: () => self.clients.matchAll() } })
 * self.addEventListener('fetch', (event) => {
 *   const response = rewriter.handle(event.request, event.clientId)
 *   if (response) event.respondWith(response)
 * })
 * ```
 */
export class RequestRewriter {
  readonly #slots: VideoSlots
  readonly #pages: PageQuestions
  readonly #sender: RequestSender

  constructor(options: RequestRewriterOptions) {
    const {
      clients,
      store,
      fetch: send = (input, init) => fetch(input, init),
      now = () => Date.now(),
      askTimeoutMs = 1000,
      refreshTimeoutMs = 8000,
      outageHoldMs = 120_000,
      timers = { set: (callback, ms) => setTimeout(callback, ms), clear: (id) => clearTimeout(id) },
    } = options
    const cdn = { ...CDN_FAILOVER_DEFAULTS, ...options.cdn }
    this.#sender = new RequestSender(send)
    this.#slots = new VideoSlots({
      store,
      now,
      timers,
      cdn,
      probe: (url, signal) => this.#sender.probe(url, signal),
    })
    this.#pages = new PageQuestions(
      { clients, now, askTimeoutMs, refreshTimeoutMs, outageHoldMs },
      this.#slots,
    )
  }

  /**
   * The response for `request`, or `undefined` when the worker leaves it alone (not a GET/HEAD,
   * or no `{token}/{expires}` pair in its URL).
   */
  handle(request: Request, clientId: string): Promise<Response> | undefined {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
    if (!findTokenPair(request.url)) return undefined
    return this.#respond(request, clientId)
  }

  /**
   * Takes a page's message and replies on `port`: for `seen` what was moved, for a record or a
   * forget `true` once taken (then saved). Other messages are left alone.
   */
  async receive(
    message: PageMessage | WorkerQuestion,
    clientId: string,
    port?: MessagePort,
  ): Promise<void> {
    // a restarted worker reads its copy first: a record saved now keeps the other videos', and
    // `seen` answers what was moved before the restart
    await this.#slots.restore()
    if (message.kind === 'token-refresh:seen')
      return port?.postMessage(this.#slots.seen(message.url, clientId))
    if (message.kind === 'token-refresh:record') this.#slots.accept(message.entry, clientId)
    else if (message.kind === 'token-refresh:forget') this.#slots.forget(message.url, clientId)
    else return // not a page's message (a claim, a question of the worker's): no reply
    port?.postMessage(true)
    await this.#slots.persist()
  }

  async #respond(request: Request, clientId: string): Promise<Response> {
    const found = await this.#slotFor(request.url, clientId)
    // A sender with a newer pair than the worker's (a player with its own hooks) knows better:
    // never move a request onto an older token, nor hold it for the worker's next record.
    if (!found || (findTokenPair(request.url)?.expires ?? 0) > found.entry.record.expires)
      return this.#sender.forward(request)
    const slot = await this.#pages.fresh(found, request.url, clientId, request.signal)
    // the player gave up on it while it was held: nothing to send
    request.signal.throwIfAborted()
    // a move changes the host and the pair, never the file
    if (isPlaylist(request.url)) slot.seen.playlists++
    else {
      slot.seen.media++
      // the page's evidence for leaving the element alone: saved at once, for a restarted worker
      if (ELEMENT_DESTINATIONS.has(request.destination) && !slot.seen.element++)
        void this.#slots.persist()
    }
    return this.#sender.attempt(request, this.#slots.attempt(slot, request.url), {
      // the page recovers the refused token; the request goes again when its record moves it
      recovered: async (url, status) => {
        const question = { kind: 'token-refresh:recover', url, status } as const
        const updated = await this.#pages.owner(slot, question, clientId)
        return updated !== undefined && updated.rewrite(url) !== url
      },
    })
  }

  /** The slot of `url`'s video: known, persisted (a restarted worker), or asked of the pages. */
  async #slotFor(url: string, clientId: string): Promise<Slot | undefined> {
    const known = this.#slots.find(url, clientId)
    if (known) return known
    await this.#slots.restore()
    return this.#slots.find(url, clientId) ?? this.#pages.records(url, clientId)
  }
}
