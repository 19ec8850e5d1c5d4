import type { CdnLane } from './cdn-lane.ts'
import type { RefreshSettings } from './refresh-settings.ts'
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

  /** `url` (already rewritten) was sent: a later probe asks for the same file. */
  sent(url: string): void {
    this.#lastUrl = url
  }

  /** Stops the lane's probe for good. */
  stop(): void {
    this.#stopped = true
    this.#lane?.stop()
  }

  #open({ createCdnLane, headProbe }: typeof import('./cdn-lane.ts')): CdnLane {
    const { clock, timers, cdn } = this.#settings
    const probe = cdn.probe ?? headProbe
    return createCdnLane(this.ids, cdn, {
      clock,
      timers,
      // the last URL of the video, on the probed CDN with its token
      probe: (id, signal) => {
        const url = this.rewrite(this.#lastUrl ?? this.#record.url, id)
        return url === undefined ? Promise.resolve(false) : probe(url, signal)
      },
      changed: this.#hooks.changed,
    })
  }
}
