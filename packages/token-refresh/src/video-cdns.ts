import { type CdnFailure, cdnFailureOf } from '@proj/signing/cdn-failure'
import { findTokenPair } from '@proj/signing/url'
import type { AttemptHost } from './cdn-attempt.ts'
import type { CdnLane } from './cdn-lane.ts'
import { type RefreshSettings, systemTimers } from './refresh-settings.ts'
import type { CdnChange, TokenRecord } from './types.ts'
import { type CdnRewriter, cdnRewriter } from './url-rewriter.ts'

/** Whether the token `url` carries is still valid at `serverNow` (ms, the server's clock). */
const fresh = (url: string, serverNow: number) =>
  (findTokenPair(url)?.expires ?? 0) * 1000 > serverNow

/** What {@link VideoCdns} tells its refresher. */
export interface VideoCdnsHooks {
  /** The CDN in use changed (a `cdnchange` event). */
  changed(change: CdnChange): void
  /** The lane's module did not load (the video stays on its preferred CDN meanwhile). */
  failed(error: unknown): void
}

/**
 * The CDNs of a refresher's video: the URL rules of the current record (which CDN a URL is on,
 * how to move it onto another with that CDN's pair) and, with several CDNs, the lane that says
 * which one is in use (`cdn-lane.ts`, a module loaded the first time a record with `cdns`
 * comes in: a page whose records name one CDN never downloads it).
 *
 * @example
 * ```ts
 * const cdns = new VideoCdns(settings, record, hooks)
 * await cdns.follow(record) // loads the lane when the record has several CDNs
 * cdns.rewrite(url) // on the CDN in use, with its pair
 * ```
 */
export class VideoCdns {
  readonly #settings: RefreshSettings
  readonly #hooks: VideoCdnsHooks
  #record: TokenRecord
  #rules: CdnRewriter
  /** Which CDN is in use and its probe, with two or more CDNs (`undefined` with one). */
  #lane: CdnLane | undefined
  /** The lane's module, once a record with several CDNs asked for it. */
  #module: Promise<typeof import('./cdn-lane.ts')> | undefined
  /** The last URL of the video sent: what a probe of the preferred CDN asks for. */
  #lastUrl: string | undefined
  #stopped = false

  /** Knows `record`'s URL rules at once; {@link follow} it to get its lane. */
  constructor(settings: RefreshSettings, record: TokenRecord, hooks: VideoCdnsHooks) {
    this.#settings = settings
    this.#hooks = hooks
    this.#record = record
    this.#rules = cdnRewriter(record, settings.ipBound)
  }

  /** The lane, once loaded, while the record has several CDNs. */
  get lane(): CdnLane | undefined {
    return this.#lane
  }

  /**
   * Takes the current record's CDNs. The CDN in use stays while the record lists it: a refresh
   * mid-outage must not bring playback back to the failing CDN. Resolves once the lane is there
   * (at once when it is, or with one CDN); until then requests go to the preferred CDN.
   */
  follow(record: TokenRecord): Promise<void> {
    this.#record = record
    const rules = cdnRewriter(record, this.#settings.ipBound)
    this.#rules = rules
    if (rules.ids.length < 2) {
      this.#lane?.stop()
      this.#lane = undefined
    } else if (this.#lane) this.#lane.update(rules.ids)
    else {
      this.#module ??= import('./cdn-lane.ts')
      return this.#module.then(
        (module) => {
          if (!this.#lane && !this.#stopped && this.ids.length >= 2) this.#lane = this.#open(module)
        },
        (error: unknown) => {
          // one CDN for now: the next record tries again
          this.#module = undefined
          this.#hooks.failed(error)
        },
      )
    }
    return Promise.resolve()
  }

  /** The record's CDN ids, preferred first (`['']` for a record without `cdns`). */
  get ids(): string[] {
    return this.#rules.ids
  }

  /** The CDN `url` is on, when it is a URL of the video. */
  cdnOf(url: string): string | undefined {
    return this.#rules.cdnOf(url)
  }

  /** `url` moved onto CDN `id` (default: the one in use) with its pair; `undefined` for other URLs. */
  rewrite(url: string, id = this.#lane?.active ?? this.ids[0] ?? ''): string | undefined {
    return this.#rules.rewrite(url, id)
  }

  /** The current token of CDN `id` (`token_ip` when `ipBound`); the record's own for one CDN. */
  tokenOf(id: string | undefined): string {
    const record = this.#record
    const cdn = record.cdns?.find((entry) => entry.id === id) ?? record
    return this.#settings.ipBound ? cdn.token_ip : cdn.token
  }

  /**
   * Why an answer of `status` for `url` is its CDN's failure (several CDNs, the video's URLs),
   * its token judged on the server's clock (`serverNow`, ms).
   */
  failureOf(url: string, status: number, serverNow: number): CdnFailure | undefined {
    if (!this.#lane || this.cdnOf(url) === undefined) return undefined
    return cdnFailureOf(status, { tokenFresh: fresh(url, serverNow) })
  }

  /** `url` failed on its CDN: whether a retry goes to another CDN now (see `CdnLane.failed`). */
  failed(url: string, failure: CdnFailure): boolean {
    const id = this.cdnOf(url)
    return !!this.#lane && !this.#stopped && id !== undefined && this.#lane.failed(id, failure)
  }

  /** What the attempts of `refresher`'s video ask of it, and of these CDNs. */
  attemptHost(
    refresher: Pick<AttemptHost, 'rewrite' | 'prepare' | 'recover'> & { serverNow(): number },
  ): AttemptHost {
    return {
      rewrite: (url) => refresher.rewrite(url),
      prepare: (url) => refresher.prepare(url),
      recover: (url) => refresher.recover(url),
      lane: () => this.#lane,
      cdnOf: (url) => this.cdnOf(url),
      fresh: (url) => fresh(url, refresher.serverNow()),
      // a real request's first byte: the real clock, whatever clock the schedule is given
      timers: systemTimers,
    }
  }

  /** `url` (already rewritten) was sent: a later probe asks for the same file. */
  sent(url: string): void {
    this.#lastUrl = url
  }

  /** Stops the lane's probe for good. */
  stop(): void {
    this.#stopped = true
    this.#lane?.stop()
  }

  #open({ openCdnLane }: typeof import('./cdn-lane.ts')): CdnLane {
    return openCdnLane(this.#settings, {
      ids: this.ids,
      // the last URL of the video, on the probed CDN with its token
      probeUrl: (id) => this.rewrite(this.#lastUrl ?? this.#record.url, id),
      changed: this.#hooks.changed,
    })
  }
}
