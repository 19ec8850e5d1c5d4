import { videoScopeOf } from '@proj/signing/url'
import {
  type AttemptHost,
  CdnAttempt,
  type CdnRewriter,
  cdnRewriter,
  type Timers,
} from '@proj/token-refresh'
import { type CdnLane, createCdnLane } from '@proj/token-refresh/cdn-lane'
import type { RecordEntry, Seen } from '../protocol.ts'
import type { RecordStore, StoredEntry } from './record-store.ts'

/** The worker's record of one video a page protects: its newest entry and what it moved. */
export interface Slot {
  /** The video: the record's plain host and directory, and `ipBound`. */
  key: string
  entry: RecordEntry
  /** Every CDN of the record: which one a URL is on, how to move it onto another. */
  cdns: CdnRewriter
  /** Moves a URL of the video onto the CDN in use and its pair; `undefined` for other URLs. */
  rewrite: (url: string) => string | undefined
  /** The page that pushed the record: the one asked to refresh it. */
  clientId: string
  seen: Seen
  /** One question per video at a time: concurrent requests share it. */
  asking?: Promise<Slot | undefined> | undefined
  /** After a page did not answer, requests stop asking it until then (ms). */
  quietUntil: number
}

/** What {@link VideoSlots} is given (the rewriter's options, resolved). */
export interface VideoSlotsOptions {
  store: RecordStore | undefined
  now: () => number
  timers: Timers
  /** The lanes' defaults (a page's `cdnTimeoutMs` wins for its video). */
  cdn: { cooldownMs: number; timeoutMs: number }
  /** Whether a CDN serves `url` (its host and token): the lane's probe. */
  probe: (url: string, signal: AbortSignal) => Promise<boolean>
}

/** A video's CDN lane (several CDNs only), and the last URL sent: what a probe asks for. */
interface Lane {
  lane: CdnLane
  lastUrl: string | undefined
}

/** Where a URL belongs: its host and the directory before the pair. */
const scopeOf = (url: string): string => {
  const scope = videoScopeOf(url)
  return `${scope?.host}${scope?.directory}`
}

/**
 * The videos pages protect, as the service worker keeps them: the newest record of each (several
 * tabs), its copy in a {@link RecordStore} that survives a restart of the worker, what was moved
 * (the page's evidence for its choice of protection) and, with several CDNs, each video's CDN
 * lane (kept across records: a record arriving mid-outage keeps the CDN requests moved to).
 *
 * @example
 * ```ts
 * const slots = new VideoSlots({ store, now, timers, cdn, probe })
 * slots.accept(entry, clientId)
 * slots.find(url, clientId)?.rewrite(url)
 * ```
 */
export class VideoSlots {
  readonly #options: VideoSlotsOptions
  readonly #slots = new Map<string, Slot>()
  /** Scopes no page said it protects, until then (ms). */
  readonly #unowned = new Map<string, number>()
  /** By slot key: each video keeps its CDN in use across records. */
  readonly #lanes = new Map<string, Lane>()
  /** `clientId key`: a page that forgot a video another page protects; its requests go as they are. */
  readonly #left = new Set<string>()
  #restored: Promise<void> | undefined

  constructor(options: VideoSlotsOptions) {
    this.#options = options
  }

  /**
   * The slot of `url`'s video, the requesting page's first when several pages hold one; none for
   * a page that forgot the video (its stream refused, its player gone).
   */
  find(url: string, clientId: string): Slot | undefined {
    let found: Slot | undefined
    for (const slot of this.#slots.values())
      if (
        slot.rewrite(url) &&
        !this.#left.has(`${clientId} ${slot.key}`) &&
        (!found || slot.clientId === clientId)
      )
        found = slot
    return found
  }

  /**
   * Reads the persisted records and what was moved of each, once per worker (a restarted worker
   * starts from them, before it takes or saves anything).
   */
  restore(): Promise<void> {
    this.#restored ??= (async () => {
      for (const entry of (await this.#options.store?.load()) ?? [])
        Object.assign(this.accept(entry, '')?.seen ?? {}, entry?.seen)
    })()
    return this.#restored
  }

  /**
   * Takes a page's entry: the newest record of a video wins. Returns the video's slot, or
   * `undefined` for an entry of a wrong shape (a broken or hostile page, a damaged copy): it
   * would break the requests of every video.
   */
  accept(entry: RecordEntry, clientId: string): Slot | undefined {
    let cdns: CdnRewriter
    try {
      cdns = cdnRewriter(entry.record, entry.ipBound)
      // a hole among its CDNs would throw at each URL matched against it
      if (cdns.ids.includes(undefined as never)) return undefined
    } catch {
      return undefined
    }
    const key = `${scopeOf(entry.record.url)} ${entry.ipBound}`
    const existing = this.#slots.get(key)
    this.#left.delete(`${clientId} ${key}`)
    this.#unowned.delete(scopeOf(entry.record.url))
    this.#unowned.delete(scopeOf(entry.record.url_ip))
    if (existing && existing.entry.record.expires > entry.record.expires) return existing
    this.#follow(key, entry, cdns.ids)
    const slot: Slot = {
      key,
      entry,
      cdns,
      rewrite: (url) => cdns.rewrite(url, this.#lanes.get(key)?.lane.active ?? cdns.ids[0] ?? ''),
      clientId: clientId || existing?.clientId || '',
      seen: existing?.seen ?? { playlists: 0, media: 0, element: 0 },
      quietUntil: 0,
    }
    this.#slots.set(key, slot)
    return slot
  }

  /**
   * A page closed its video: only its own record goes (another tab may still play it), and the
   * page's requests of the video are no longer moved onto another page's record (a stream the
   * backend refused must not play on in the tab of the stream that replaced it).
   */
  forget(url: string, clientId: string): void {
    for (const [key, slot] of this.#slots)
      if (!slot.rewrite(url)) continue
      else if (slot.clientId && slot.clientId !== clientId) this.#left.add(`${clientId} ${key}`)
      else {
        this.#slots.delete(key)
        this.#follow(key, slot.entry, [])
      }
  }

  /**
   * The pages open now, `ids` (every one: `clients.matchAll()`): what was kept of the tabs that
   * forgot a video goes with the tabs that are gone (an id is never used again).
   */
  open(ids: string[]): void {
    for (const left of this.#left)
      if (!ids.some((id) => left.startsWith(`${id} `))) this.#left.delete(left)
  }

  /** What the worker moved of `url`'s video (the asking page's slot first). */
  seen(url: string, clientId: string): Seen {
    return this.find(url, clientId)?.seen ?? { playlists: 0, media: 0, element: 0 }
  }

  /** No page protects `url`'s video: not asked again for a while. */
  unowned(url: string, forMs: number): void {
    this.#unowned.set(scopeOf(url), this.#options.now() + forMs)
  }

  /** Whether the pages said lately that none protects `url`'s video. */
  isUnowned(url: string): boolean {
    return (this.#unowned.get(scopeOf(url)) ?? 0) > this.#options.now()
  }

  /**
   * Saves the records and what was moved of each (those whose token died an hour ago help no
   * restart).
   */
  async persist(): Promise<void> {
    const horizon = this.#options.now() / 1000 - 3600
    const entries: StoredEntry[] = [...this.#slots.values()]
      .filter((slot) => slot.entry.record.expires > horizon)
      .map((slot) => ({ ...slot.entry, seen: slot.seen }))
    await this.#options.store?.save(entries)
  }

  /**
   * One request of `slot`'s video, sent to `url`: a `CdnAttempt` on the video's current record
   * and lane. A refused token is the page's to recover: the attempt says `'refresh'` once, the
   * rewriter asks the page, and sends again with the record it answers.
   */
  attempt(slot: Slot, url: string): CdnAttempt {
    const { now, timers } = this.#options
    const current = () => this.#slots.get(slot.key) ?? slot
    const host: AttemptHost = {
      rewrite: (target) => {
        const rewritten = current().rewrite(target) ?? target
        const lane = this.#lanes.get(slot.key)
        if (lane) lane.lastUrl = rewritten
        return rewritten
      },
      prepare: async (target) => host.rewrite(target),
      lane: () => this.#lanes.get(slot.key)?.lane,
      cdnOf: (target) => current().cdns.cdnOf(target),
      fresh: () => now() < (current().entry.expiresAt ?? Number.POSITIVE_INFINITY),
      recover: () => true,
      timers,
      // the element's request waits on every question to a page: one is enough
      refusalRetries: 1,
    }
    return new CdnAttempt(host, url)
  }

  /** The CDN lane of video `key` for a record of CDNs `ids`: none with one CDN. */
  #follow(key: string, entry: RecordEntry, ids: string[]): void {
    const existing = this.#lanes.get(key)
    if (ids.length < 2) {
      existing?.lane.stop()
      this.#lanes.delete(key)
    } else if (existing) existing.lane.update(ids)
    else {
      const { now, timers, cdn, probe } = this.#options
      const timeoutMs = entry.cdnTimeoutMs ?? cdn.timeoutMs
      const state: Lane = {
        lastUrl: undefined,
        lane: createCdnLane(
          ids,
          { cooldownMs: cdn.cooldownMs, timeoutMs },
          {
            clock: { now },
            timers,
            // the video's last URL, on the probed CDN with its token
            probe: (id, signal) => {
              const slot = this.#slots.get(key)
              const url = slot?.cdns.rewrite(state.lastUrl ?? slot.entry.record.url, id)
              return url ? probe(url, signal) : Promise.resolve(false)
            },
            changed: () => undefined,
          },
        ),
      }
      this.#lanes.set(key, state)
    }
  }
}
