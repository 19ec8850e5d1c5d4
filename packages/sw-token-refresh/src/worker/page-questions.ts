import { type Answer, ask, type MessageTarget } from '../protocol.ts'
import type { Slot, VideoSlots } from './video-slots.ts'

/** The worker's view of its pages (`self.clients` in a service worker). */
export interface WorkerClients {
  get(id: string): Promise<MessageTarget | undefined>
  /** The window clients in the worker's scope. */
  matchAll(): Promise<readonly MessageTarget[]>
}

/** What {@link PageQuestions} is given (the rewriter's options, resolved). */
export interface PageQuestionsOptions {
  clients: WorkerClients
  now: () => number
  /** How long a request waits for a page to say which records it holds (ms). */
  askTimeoutMs: number
  /** How long a request waits for a page's refresh (ms). */
  refreshTimeoutMs: number
  /** How long a request is held for the next record once the token has expired (ms). */
  outageHoldMs: number
}

/** A question about one URL of a video, for the page that owns it. */
export interface OwnerQuestion {
  kind: 'token-refresh:prepare' | 'token-refresh:recover'
  url: string
  /** A `recover`'s: the CDN's refusal (403, 410). */
  status?: number
}

// Pages that said they protect no video of a host+path stay unasked for this long (ms).
const UNOWNED_MS = 5000
// A page holds a request during an outage up to its `maxOutageWaitMs` (30 s by default): asked
// while the token is expired, it is given that long and a little more to answer (ms).
const OUTAGE_ASK_MS = 35_000
// While held, a page that answered at once with the same expired record is asked again after
// this long, or the refresh timeout if shorter (ms).
const OUTAGE_POLL_MS = 1000
// A page that did not answer is not asked again for this long (ms).
const QUIET_MS = 2000

/**
 * The service worker's questions to its pages, whose refreshers hold the records: which records
 * a page holds (a restarted worker, a request of a video it does not know), refresh now (a
 * request inside the lead window, or past the expiry during a backend outage), and recover
 * after a 403/410 (the core's `recover`). Every question is bounded in time: a frozen page or a
 * closed one must not hold a request forever.
 *
 * @example
 * ```ts
 * const pages = new PageQuestions(options, slots)
 * const slot = slots.find(url, clientId) ?? (await pages.records(url, clientId))
 * ```
 */
export class PageQuestions {
  readonly #options: PageQuestionsOptions
  readonly #slots: VideoSlots

  constructor(options: PageQuestionsOptions, slots: VideoSlots) {
    this.#options = options
    this.#slots = slots
  }

  /**
   * The slot of `url`'s video after asking every page which records it holds (they are taken);
   * `undefined` when none protects it (then not asked again for a while).
   */
  async records(url: string, clientId: string): Promise<Slot | undefined> {
    if (this.#slots.isUnowned(url)) return undefined
    const { clients, askTimeoutMs } = this.#options
    const pages = await clients.matchAll()
    const idOf = (page: MessageTarget) => (page as { id?: string }).id ?? ''
    // every open page: the worker learns here which tabs are gone
    this.#slots.open(pages.map(idOf))
    // every page at once, each record taken as its answer comes
    await Promise.all(
      pages.map(async (page) => {
        const answer = await ask<Answer>(page, { kind: 'token-refresh:records' }, askTimeoutMs)
        for (const entry of answer?.entries ?? []) this.#slots.accept(entry, idOf(page))
      }),
    )
    const found = this.#slots.find(url, clientId)
    if (found) void this.#slots.persist()
    else this.#slots.unowned(url, UNOWNED_MS)
    return found
  }

  /**
   * The slot with a pair worth sending: inside the lead window the owner refreshes first; past
   * the expiry (an outage) the request waits for the next record, asking again while it lasts,
   * up to `outageHoldMs` or until `signal` aborts.
   */
  async fresh(found: Slot, url: string, clientId: string, signal: AbortSignal): Promise<Slot> {
    const { now, outageHoldMs } = this.#options
    const question: OwnerQuestion = { kind: 'token-refresh:prepare', url }
    let slot = found
    const expired = () => now() >= (slot.entry.expiresAt ?? Number.POSITIVE_INFINITY)
    if (!expired() && now() >= slot.entry.staleAt && now() >= slot.quietUntil)
      slot = (await this.owner(slot, question, clientId)) ?? slot
    const holdUntil = now() + outageHoldMs
    while (expired() && now() < holdUntil) {
      if (signal.aborted) break
      const before = slot.entry.record.expires
      slot = (await this.owner(slot, question, clientId, OUTAGE_ASK_MS)) ?? slot
      // the same record again (a new object each answer: compared by its expiry): pause, at
      // most as long as a refresh may take
      if (slot.entry.record.expires <= before)
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(OUTAGE_POLL_MS, this.#options.refreshTimeoutMs)),
        )
    }
    return slot
  }

  /**
   * Asks the page that owns `slot` (or the requesting one) and takes the record it answers:
   * the video's slot then, `undefined` without an answer (or a `recover` it says cannot help).
   * `prepare` questions of one video are shared; a `recover` is about one URL and always asked.
   */
  owner(
    slot: Slot,
    question: OwnerQuestion,
    clientId: string,
    // a recover (the one question with a status) of a valid token whose refresh failed: the
    // page holds it for the retry as it holds an expired one's request (which `fresh` held
    // already), and is given as long
    timeoutMs = question.status && this.#options.now() < (slot.entry.expiresAt ?? 0)
      ? OUTAGE_ASK_MS
      : this.#options.refreshTimeoutMs,
  ): Promise<Slot | undefined> {
    const preparing = question.kind === 'token-refresh:prepare'
    if (preparing && slot.asking) return slot.asking
    const { clients, now } = this.#options
    const asking = (async () => {
      const page = (await clients.get(slot.clientId)) ?? (await clients.get(clientId))
      const answer = page ? await ask<Answer>(page, question, timeoutMs) : undefined
      const [entry] = answer?.entries ?? []
      if (!entry) {
        slot.quietUntil = now() + QUIET_MS
        return undefined
      }
      const updated = this.#slots.accept(entry, slot.clientId)
      void this.#slots.persist()
      return preparing || answer?.retry ? updated : undefined
    })()
    if (preparing) {
      slot.asking = asking
      void asking.finally(() => {
        slot.asking = undefined
      })
    }
    return asking
  }
}
