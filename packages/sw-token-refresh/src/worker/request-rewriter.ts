import { findTokenPair, TOKEN_PAIR_PATTERN } from '@proj/signing/url'
import {
  CDN_FAILOVER_DEFAULTS,
  type CdnFailover,
  type CdnRewriter,
  cdnRewriter,
  classifyCdnFailure,
  isTokenRejection,
  type Timers,
} from '@proj/token-refresh'
import { createCdnFailover } from '@proj/token-refresh/cdn-lane'
import {
  type Answer,
  ask,
  isPlaylist,
  type MessageTarget,
  type PageMessage,
  type RecordEntry,
  type Seen,
} from '../protocol.ts'
import type { RecordStore } from './record-store.ts'

/** The worker's view of its pages (`self.clients` in a service worker). */
export interface WorkerClients {
  get(id: string): Promise<MessageTarget | undefined>
  /** The window clients in the worker's scope. */
  matchAll(): Promise<readonly MessageTarget[]>
}

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

/** Which CDN a video's requests go to (several CDNs only), and the URL a probe asks for. */
interface CdnState {
  failover: CdnFailover
  lastUrl: string | undefined
}

interface Slot {
  /** The video: the record's plain host and path, and `ipBound`. */
  key: string
  entry: RecordEntry
  /** Moves a URL of the video onto the active CDN and its pair; `undefined` for other URLs. */
  rewrite: (url: string) => string | undefined
  cdns: CdnRewriter
  /** The page that pushed the record: the one asked to refresh it. */
  clientId: string
  seen: Seen
  /** One question per video at a time: concurrent requests share it. */
  asking?: Promise<Slot | undefined> | undefined
  /** After a page did not answer, requests stop asking it until then (ms). */
  quietUntil: number
}

// Pages that said they protect no video of a host+path stay unasked for this long (ms).
const UNOWNED_MS = 5000
// A page holds a request during an outage up to its `maxOutageWaitMs` (30 s by default): asked
// while the token is expired, it is given that long and a little more to answer (ms).
const OUTAGE_ASK_MS = 35_000
// While held, a page that answered at once with the same expired record is asked again after (ms).
const OUTAGE_POLL_MS = 1000
const ELEMENT_DESTINATIONS = new Set(['audio', 'video', 'track'])

const scopeKey = (url: string): string => {
  const parsed = new URL(url)
  const index = parsed.pathname.search(TOKEN_PAIR_PATTERN)
  return parsed.host + parsed.pathname.slice(0, index)
}

/**
 * The service worker's logic, free of the service-worker globals so tests can drive it: moves
 * each request of a protected video onto the current `{token}/{expires}` pair and host (the
 * core's rewrite rules), keeping method, headers (`Range`), credentials and the abort signal.
 *
 * - Records come from pages (`token-refresh:record`); the newest per video wins (several tabs).
 * - A request for a tokenised URL that matches no record (the worker was restarted) first reads
 *   the persisted copy, then asks the pages, and only then goes out unchanged.
 * - Inside the lead window the owning page is asked to refresh first (bounded wait); once the
 *   token has expired (a backend outage), the request is held until the next record arrives
 *   (up to `outageHoldMs`): a native player would turn the 410 into a fatal error.
 * - A request already on a newer pair than the worker's (a player with hooks) goes out as is.
 * - With several CDNs (`record.cdns`), a request that fails on its CDN (no first byte within
 *   the timeout, 5xx, no answer, 403/410 for a fresh token) is sent again at once on the next
 *   CDN with that CDN's token; the video's requests stay there until a probe of the preferred
 *   CDN, a cooldown later, succeeds (the core's `CdnFailover`).
 * - A 403/410 answer asks the page to recover (the core's `recover`) and retries once.
 * - It stores no media and touches no request without a token pair of a known video.
 *
 * Cross-origin media requests of a `<video>` are `no-cors`, whose answers are opaque (status 0):
 * the worker sends them in `cors` mode without cookies so it can see a 403/410. A CDN that does
 * not allow CORS falls back to the request's own mode (then no recovery) after one failure.
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
  #slots = new Map<string, Slot>()
  #unowned = new Map<string, number>()
  #opaqueOrigins = new Set<string>()
  /** By slot key: each video keeps its active CDN across records. */
  #cdnStates = new Map<string, CdnState>()
  #restored: Promise<void> | undefined
  #options: Required<Omit<RequestRewriterOptions, 'store' | 'cdn'>> & {
    store: RecordStore | undefined
    cdn: { cooldownMs: number; timeoutMs: number }
  }

  constructor(options: RequestRewriterOptions) {
    this.#options = {
      fetch: (input, init) => fetch(input, init),
      now: () => Date.now(),
      askTimeoutMs: 1000,
      refreshTimeoutMs: 8000,
      outageHoldMs: 120_000,
      store: undefined,
      timers: { set: (callback, ms) => setTimeout(callback, ms), clear: (id) => clearTimeout(id) },
      ...options,
      cdn: { ...CDN_FAILOVER_DEFAULTS, ...options.cdn },
    }
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
   * Takes a page's message; resolves with the reply for `seen` (also posted on `port`).
   */
  async receive(message: PageMessage, clientId: string, port?: MessagePort): Promise<void> {
    let reply: unknown = true
    if (message.kind === 'token-refresh:record') this.#accept(message.entry, clientId)
    else if (message.kind === 'token-refresh:forget') {
      // only the page's own record: another tab may still play the video
      for (const [key, slot] of this.#slots)
        if (slot.rewrite(message.url) && (slot.clientId === clientId || !slot.clientId)) {
          this.#slots.delete(key)
          this.#cdnState(key, [])
        }
    } else if (message.kind === 'token-refresh:seen') {
      reply = { playlists: 0, media: 0, element: 0 }
      for (const slot of this.#slots.values()) if (slot.rewrite(message.url)) reply = slot.seen
    }
    port?.postMessage(reply)
    if (message.kind === 'token-refresh:record' || message.kind === 'token-refresh:forget')
      await this.#persist()
  }

  async #respond(request: Request, clientId: string): Promise<Response> {
    const found = await this.#slotFor(request.url, clientId)
    if (!found) return this.#options.fetch(request)
    const slot = await this.#fresh(found, request, clientId)
    // the player gave up on it while it was held: nothing to send
    request.signal.throwIfAborted()
    // A sender with a newer pair than the worker's (a player with its own hooks) knows better:
    // never move a request onto an older token.
    if ((findTokenPair(request.url)?.expires ?? 0) > slot.entry.record.expires)
      return this.#options.fetch(request)
    const target = slot.rewrite(request.url) ?? request.url
    if (isPlaylist(target)) slot.seen.playlists++
    else {
      slot.seen.media++
      if (ELEMENT_DESTINATIONS.has(request.destination)) slot.seen.element++
    }
    const sent = await this.#sendFailingOver(request, slot, target)
    const { response } = sent
    if (!isTokenRejection(response.status)) return response
    const fresh = await this.#askOwner(
      slot,
      { kind: 'token-refresh:recover', url: sent.target },
      clientId,
    )
    const retry = fresh?.rewrite(request.url)
    if (!retry || retry === sent.target) return response
    return this.#send(request, retry)
  }

  /**
   * Sends `request` to `target`; with several CDNs, a failure of the target's CDN (no first
   * byte in time, an answer `classifyCdnFailure` blames on it, no answer) sends it again at
   * once on the CDN the failover moves to, each CDN at most once per request.
   */
  async #sendFailingOver(
    request: Request,
    slot: Slot,
    first: string,
  ): Promise<{ response: Response; target: string }> {
    const state = this.#cdnStates.get(slot.key)
    if (!state) return { response: await this.#send(request, first), target: first }
    const timeoutMs = slot.entry.cdnTimeoutMs ?? this.#options.cdn.timeoutMs
    const fresh = () => this.#options.now() < (slot.entry.expiresAt ?? Number.POSITIVE_INFINITY)
    let target = first
    for (let tries = 1; ; tries++) {
      state.lastUrl = target
      const id = slot.cdns.cdnOf(target) ?? ''
      const more = tries < slot.cdns.ids.length
      const moved = { byTimeout: false }
      try {
        const response = await this.#sendTimed(request, target, timeoutMs, () => {
          moved.byTimeout = more && state.failover.failed(id, 'timeout')
          return moved.byTimeout
        })
        // opaque answers (a CDN without CORS) say nothing about the CDN
        const failure =
          response.type === 'opaque' ? undefined : classifyCdnFailure(response.status, fresh())
        if (!failure || !more || !state.failover.failed(id, failure)) return { response, target }
        // the failed answer is dropped: let its connection go instead of leaving the body unread
        response.body?.cancel().catch(() => undefined)
      } catch (error) {
        const failedOver =
          moved.byTimeout ||
          (!request.signal.aborted && more && state.failover.failed(id, 'network'))
        if (!failedOver) throw error
      }
      target = slot.rewrite(request.url) ?? target
    }
  }

  /** {@link #send}, abandoned (rejecting) when `giveUp()` agrees after `ms` without an answer. */
  async #sendTimed(
    request: Request,
    url: string,
    ms: number,
    giveUp: () => boolean,
  ): Promise<Response> {
    const controller = new AbortController()
    const follow = () => controller.abort(request.signal.reason)
    request.signal.addEventListener('abort', follow, { once: true })
    const { timers } = this.#options
    const timer = timers.set(() => {
      if (giveUp()) controller.abort(new DOMException('no first byte in time', 'TimeoutError'))
    }, ms)
    try {
      return await this.#send(request, url, controller.signal)
    } finally {
      timers.clear(timer)
      request.signal.removeEventListener('abort', follow)
    }
  }

  /** Whether the CDN `id` serves the video's last URL again: a HEAD with its token, in time. */
  async #probe(key: string, id: string): Promise<boolean> {
    const slot = this.#slots.get(key)
    const last = this.#cdnStates.get(key)?.lastUrl ?? slot?.entry.record.url
    const url = last && slot?.cdns.rewrite(last, id)
    if (!slot || !url) return false
    const timeoutMs = slot.entry.cdnTimeoutMs ?? this.#options.cdn.timeoutMs
    const probe = new Request(url, { method: 'HEAD', mode: 'cors', cache: 'no-store' })
    const response = await this.#sendTimed(probe, url, timeoutMs, () => true)
    return response.ok
  }

  /**
   * The slot with a pair worth sending: inside the lead window the owner refreshes first; past
   * the expiry (an outage) the request waits for the next record, asking again while it lasts.
   */
  async #fresh(found: Slot, request: Request, clientId: string): Promise<Slot> {
    const { now, outageHoldMs } = this.#options
    const question = { kind: 'token-refresh:prepare', url: request.url } as const
    let slot = found
    const expired = () => now() >= (slot.entry.expiresAt ?? Number.POSITIVE_INFINITY)
    if (!expired() && now() >= slot.entry.staleAt && now() >= slot.quietUntil)
      slot = (await this.#askOwner(slot, question, clientId)) ?? slot
    const holdUntil = now() + outageHoldMs
    while (expired() && now() < holdUntil) {
      if (request.signal.aborted) break
      const before = slot.entry
      slot = (await this.#askOwner(slot, question, clientId, OUTAGE_ASK_MS)) ?? slot
      if (slot.entry === before) await new Promise((resolve) => setTimeout(resolve, OUTAGE_POLL_MS))
    }
    return slot
  }

  #find(url: string, clientId: string): Slot | undefined {
    let found: Slot | undefined
    for (const slot of this.#slots.values())
      if (slot.rewrite(url) && (!found || slot.clientId === clientId)) found = slot
    return found
  }

  async #slotFor(url: string, clientId: string): Promise<Slot | undefined> {
    const known = this.#find(url, clientId)
    if (known) return known
    this.#restored ??= this.#restore()
    await this.#restored
    const restored = this.#find(url, clientId)
    if (restored) return restored
    const key = scopeKey(url)
    if ((this.#unowned.get(key) ?? 0) > this.#options.now()) return undefined
    const clients = await this.#options.clients.matchAll()
    const answers = await Promise.all(
      clients.map(async (client) => ({
        client,
        answer: await ask<Answer>(
          client,
          { kind: 'token-refresh:records' },
          this.#options.askTimeoutMs,
        ),
      })),
    )
    for (const { client, answer } of answers)
      for (const entry of answer?.entries ?? [])
        this.#accept(entry, (client as { id?: string }).id ?? '')
    const found = this.#find(url, clientId)
    if (found) void this.#persist()
    else this.#unowned.set(key, this.#options.now() + UNOWNED_MS)
    return found
  }

  /** Asks the page that owns `slot` (or the requesting one) and takes the record it answers. */
  #askOwner(
    slot: Slot,
    question: { kind: 'token-refresh:prepare' | 'token-refresh:recover'; url: string },
    clientId: string,
    timeoutMs = this.#options.refreshTimeoutMs,
  ): Promise<Slot | undefined> {
    // prepare questions are shared; a recover is about one URL and always asked
    if (question.kind === 'token-refresh:prepare' && slot.asking) return slot.asking
    const asking = (async () => {
      const client =
        (await this.#options.clients.get(slot.clientId)) ??
        (await this.#options.clients.get(clientId))
      const answer = client ? await ask<Answer>(client, question, timeoutMs) : undefined
      const [entry] = answer?.entries ?? []
      if (!entry) {
        slot.quietUntil = this.#options.now() + 2000
        return undefined
      }
      const updated = this.#accept(entry, slot.clientId)
      void this.#persist()
      return question.kind === 'token-refresh:recover' && !answer?.retry ? undefined : updated
    })()
    if (question.kind === 'token-refresh:prepare') {
      slot.asking = asking
      void asking.finally(() => {
        slot.asking = undefined
      })
    }
    return asking
  }

  #accept(entry: RecordEntry, clientId: string): Slot {
    const key = `${scopeKey(entry.record.url)} ${entry.ipBound}`
    const existing = this.#slots.get(key)
    this.#unowned.delete(scopeKey(entry.record.url))
    this.#unowned.delete(scopeKey(entry.record.url_ip))
    if (existing && existing.entry.record.expires > entry.record.expires) return existing
    const cdns = cdnRewriter(entry.record, entry.ipBound)
    const state = this.#cdnState(key, cdns.ids)
    const slot: Slot = {
      key,
      entry,
      cdns,
      rewrite: (url) => cdns.rewrite(url, state?.failover.active ?? cdns.ids[0] ?? ''),
      clientId: clientId || existing?.clientId || '',
      seen: existing?.seen ?? { playlists: 0, media: 0, element: 0 },
      quietUntil: 0,
    }
    this.#slots.set(key, slot)
    return slot
  }

  /**
   * The CDN state of video `key` for a record of CDNs `ids`: kept across records (a record that
   * arrives mid-outage keeps the CDN requests moved to); none with one CDN.
   */
  #cdnState(key: string, ids: string[]): CdnState | undefined {
    const existing = this.#cdnStates.get(key)
    if (ids.length < 2) {
      existing?.failover.stop()
      this.#cdnStates.delete(key)
      return undefined
    }
    if (existing) {
      existing.failover.update(ids)
      return existing
    }
    const { now, timers, cdn } = this.#options
    const failover = createCdnFailover(ids, cdn.cooldownMs, {
      clock: { now },
      timers,
      probe: (id) => this.#probe(key, id),
      changed: () => undefined,
    })
    const state: CdnState = { failover, lastUrl: undefined }
    this.#cdnStates.set(key, state)
    return state
  }

  async #restore(): Promise<void> {
    for (const entry of (await this.#options.store?.load()) ?? []) this.#accept(entry, '')
  }

  async #persist(): Promise<void> {
    // records whose token died an hour ago help no restart
    const horizon = this.#options.now() / 1000 - 3600
    const entries = [...this.#slots.values()]
      .map((slot) => slot.entry)
      .filter((entry) => entry.record.expires > horizon)
    await this.#options.store?.save(entries)
  }

  async #send(request: Request, url: string, signal = request.signal): Promise<Response> {
    const origin = new URL(url).origin
    const own: RequestInit = {
      method: request.method,
      headers: request.headers,
      mode: request.mode === 'navigate' ? 'same-origin' : request.mode,
      credentials: request.credentials,
      redirect: request.redirect,
      signal,
      ...(request.cache === 'only-if-cached' ? {} : { cache: request.cache }),
    }
    if (own.mode !== 'no-cors' || this.#opaqueOrigins.has(origin))
      return this.#options.fetch(url, own)
    try {
      // ACAO: * (what CDNs send) does not allow cookies; tokens carry the authorisation.
      return await this.#options.fetch(url, { ...own, mode: 'cors', credentials: 'same-origin' })
    } catch (error) {
      if (signal.aborted) throw error
      const response = await this.#options.fetch(url, own)
      this.#opaqueOrigins.add(origin)
      return response
    }
  }
}
