import { findTokenPair } from '@proj/signing/url'
import type { AttemptHost } from './cdn-attempt.ts'
import type { VideoLane } from './cdn-lane.ts'
import { onDemand } from './on-demand.ts'
import { type RefreshSettings, systemTimers } from './refresh-settings.ts'
import type { CdnChange, TokenRecord } from './types.ts'
import { type CdnRewriter, cdnRewriter } from './url-rewriter.ts'

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
 * which one is in use. Everything only several CDNs need (which CDN, cooldowns, the probe, what
 * failed where) is the lane's module (`cdn-lane.ts`), loaded the first time a record with
 * `cdns` comes in: a page whose records name one CDN never downloads it.
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
  #lane: VideoLane | undefined
  readonly #module = onDemand(() => import('./cdn-lane.ts'))
  #stopped = false

  /** Knows `record`'s URL rules at once; {@link follow} it to get its lane. */
  constructor(settings: RefreshSettings, record: TokenRecord, hooks: VideoCdnsHooks) {
    this.#settings = settings
    this.#hooks = hooks
    this.#record = record
    this.#rules = cdnRewriter(record, settings.ipBound)
  }

  /** The lane, once loaded, while the record has several CDNs. */
  get lane(): VideoLane | undefined {
    return this.#lane
  }

  /**
   * Takes the current record's CDNs. The CDN in use stays while the record lists it: a refresh
   * mid-outage must not bring playback back to the failing CDN. Resolves once the lane is there
   * (at once when it is, or with one CDN); until then requests go to the preferred CDN. A lane
   * that did not load is asked for again by the next record.
   */
  async follow(record: TokenRecord): Promise<void> {
    this.#record = record
    this.#rules = cdnRewriter(record, this.#settings.ipBound)
    const { ids } = this
    if (ids.length < 2) {
      this.#lane?.stop()
      this.#lane = undefined
    } else if (this.#lane) this.#lane.update(ids)
    else
      try {
        const { openCdnLane } = await this.#module()
        if (this.#lane || this.#stopped || this.ids.length < 2) return
        this.#lane = openCdnLane(this.#settings, {
          ids: this.ids,
          // the last URL of the video (at first the master playlist), on the probed CDN
          probeUrl: (id, last) => this.rewrite(last ?? this.#record.url, id),
          changed: this.#hooks.changed,
          cdnOf: (url) => this.cdnOf(url),
        })
      } catch (error) {
        this.#hooks.failed(error)
      }
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

  /** What the attempts of `refresher`'s video ask of it, and of these CDNs. */
  attemptHost(
    refresher: Pick<AttemptHost, 'rewrite' | 'prepare' | 'recover'> & { serverNow(): number },
  ): AttemptHost {
    return {
      rewrite: (url) => refresher.rewrite(url),
      prepare: (url) => refresher.prepare(url),
      recover: (url, status) => refresher.recover(url, status),
      lane: () => this.#lane,
      cdnOf: (url) => this.cdnOf(url),
      // whether the token `url` carries is still valid, on the server's clock
      fresh: (url) => (findTokenPair(url)?.expires ?? 0) * 1000 > refresher.serverNow(),
      // a real request's first byte: the real clock, whatever clock the schedule is given
      timers: systemTimers,
    }
  }

  /** Stops the lane's probe for good. */
  stop(): void {
    this.#stopped = true
    this.#lane?.stop()
  }
}
