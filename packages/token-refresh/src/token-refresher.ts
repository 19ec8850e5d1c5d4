import { findTokenPair } from '@proj/signing/url'
import { type AttemptHost, CdnAttempt } from './cdn-attempt.ts'
import { retryAfterOf } from './fetch-token.ts'
import { waitAtMost } from './held-requests.ts'
import { nextRecord } from './next-record.ts'
import { isStreamRefusal, TokenRejectedError } from './recovery.ts'
import { checkLead, type RefreshSettings, resolveRefreshSettings } from './refresh-settings.ts'
import { RefreshTimer } from './refresh-timer.ts'
import { RejectionTracker } from './rejection-tracker.ts'
import { assertUnexpired, ServerClock } from './server-clock.ts'
import { replacingFetch, SingleFetch } from './single-fetch.ts'
import type { StreamLimitError } from './stream-limit.ts'
import type { TokenPeer } from './token-peers.ts'
import { announceRecord, RefresherEventTarget, reportError } from './token-refresher-events.ts'
import type { CdnFailure, TokenRecord, TokenRefreshOptions } from './types.ts'
import { VideoCdns } from './video-cdns.ts'

/**
 * Keeps the current token record of one video and the player's URLs on it (spec 4.15): the
 * refresher coordinates. Its timer and backoff state are a {@link RefreshTimer} (refreshes
 * spread before the lead time on the server's clock, rate-bounded, jittered backoff; the
 * arithmetic in `refresh-schedule.ts`, the defaults in `refresh-settings.ts`); refreshes also
 * run on demand when a request leaves inside the lead window and when the page becomes
 * visible; refreshers of the same video on one page share each new record (`peers`). Each
 * request is a {@link CdnAttempt} ({@link attempt}); with several CDNs (records with `cdns`),
 * the CDN lane (`cdn-lane.ts`, loaded on demand with the first such record) says which CDN
 * gets them, with its own token.
 *
 * Events: `tokenrefreshed`, `error` and `cdnchange`, `CustomEvent`s with the record, the error
 * or the change as `detail` (`TokenRefresherEventMap`: typed listeners).
 *
 * @example
 * ```ts
 * const refresher = await TokenRefresher.create({
 *   getToken: () => fetchToken('/token?video=demo&type=vod&expire=300'),
 *   refreshLeadSeconds: 60,
 * })
 * player.src(refresher.url)
 * someRequestHook((url) => refresher.rewrite(url))
 * ```
 */
export class TokenRefresher extends RefresherEventTarget implements TokenPeer {
  /** Successful refreshes so far (the initial fetch is not counted). */
  refreshCount = 0
  readonly #settings: RefreshSettings
  #record: TokenRecord
  /** The record's CDNs: which one a URL is on, which one is in use (the lane, several only). */
  readonly #cdns: VideoCdns
  /** The server's clock, as the records' `Date` tell it. */
  readonly #server: ServerClock
  readonly #rejections = new RejectionTracker()
  /** The refresh under way; concurrent callers share it. */
  readonly #fetches = new SingleFetch()
  readonly #timer: RefreshTimer
  #leavePeers: (() => void) | undefined
  /** Aborted by {@link TokenRefresher.destroy}: cancels the `getToken` call in flight. */
  readonly #ending = new AbortController()
  #refused: StreamLimitError | undefined // the backend refused the stream: no more fetches
  /** What this video's attempts ask of the refresher. */
  readonly #attempts: AttemptHost

  /**
   * Fetches the initial record (before the player exists, as 4.15 asks), checks the lead
   * time against its lifetime and starts the schedule. A record with several CDNs loads the
   * CDN lane before this resolves, so the first request can already fail over.
   *
   * @throws RangeError when `refreshLeadSeconds` is not > 0 or not below the lifetime.
   * @example
   * ```ts
   * const refresher = await TokenRefresher.create({ getToken, refreshLeadSeconds: 10 })
   * ```
   */
  static async create(options: TokenRefreshOptions): Promise<TokenRefresher> {
    const settings = resolveRefreshSettings(options)
    const fetchedAt = settings.clock.now()
    const record = await nextRecord(settings)
    const refresher = new TokenRefresher(settings, record, fetchedAt)
    const lifetime = record.expires - refresher.serverNow() / 1000
    checkLead(options.refreshLeadSeconds, lifetime, refresher.#server.known)
    await refresher.#cdns.follow(record)
    refresher.#leavePeers = settings.peers?.join(record, refresher)
    refresher.#timer.start()
    return refresher
  }

  private constructor(settings: RefreshSettings, record: TokenRecord, fetchedAt: number) {
    super()
    this.#settings = settings
    this.#record = record
    this.#cdns = new VideoCdns(settings, record, {
      changed: (change) => this.dispatchEvent(new CustomEvent('cdnchange', { detail: change })),
      failed: (error) => this.#report(error),
    })
    this.#server = new ServerClock(settings.clock, record)
    this.#timer = new RefreshTimer(settings, this, fetchedAt)
    this.#attempts = this.#cdns.attemptHost(this)
  }

  /** The current record. */
  get record(): TokenRecord {
    return this.#record
  }

  /** The master playlist URL to play: `url`, or `url_ip` when `ipBound` (on the CDN in use). */
  get url(): string {
    const url = this.ipBound ? this.#record.url_ip : this.#record.url
    return this.#cdns.lane ? (this.#cdns.rewrite(url) ?? url) : url
  }

  /** The current token of the CDN in use (`token_ip` when `ipBound`): what requests carry now. */
  get token(): string {
    return this.#cdns.tokenOf(this.activeCdn)
  }

  /** Whether URLs are moved onto `url_ip`/`token_ip` (the `ipBound` option). */
  get ipBound(): boolean {
    return this.#settings.ipBound
  }

  /** The server's clock as estimated from the last `Date` header (ms). */
  serverNow(): number {
    return this.#server.now()
  }

  /** When the token enters its lead window, on the viewer's clock (ms): for a service worker. */
  get staleAt(): number {
    return this.expiresAt - this.#settings.leadMs
  }

  /**
   * When the token expires, on the viewer's clock (ms): what a service worker holds against;
   * `0` once the CDN refused it and its refresh failed (requests wait for the retry).
   */
  get expiresAt(): number {
    const spent = this.#timer.failures && this.#rejections.spent === this.token
    return spent ? 0 : this.#server.local(this.#record.expires * 1000)
  }

  /** Whether the current token is inside its lead window (or expired) on the server's clock. */
  get stale(): boolean {
    return this.#timer.now >= this.staleAt
  }

  /** Whether the current token has expired (or the CDN refused it): requests with it are refused. */
  get expired(): boolean {
    return this.#timer.now >= this.expiresAt
  }

  /**
   * Whether the refresher gave up: the CDN refused every new token ({@link TokenRejectedError})
   * or the backend the stream ({@link StreamLimitError}); no recovery is tried from then on.
   */
  get rejected(): boolean {
    return this.#rejections.gaveUp || this.#refused !== undefined
  }

  /** Whether {@link TokenRefresher.destroy} was called: nothing is refreshed from then on. */
  get destroyed(): boolean {
    return this.#ending.signal.aborted
  }

  /** The id of the CDN requests go to; `undefined` with one CDN (records without `cdns`). */
  get activeCdn(): string | undefined {
    return this.#cdns.lane?.active
  }

  /** Time to first byte after which a sending fails (ms, `cdn.timeoutMs`); one CDN: `undefined`. */
  get cdnTimeoutMs(): number | undefined {
    return this.#cdns.lane?.timeoutMs
  }

  /**
   * One request of this video, sent to `url` (any pair, any of its CDNs): see {@link CdnAttempt}.
   *
   * @example
   * ```ts
   * const attempt = refresher.attempt(url)
   * let response = await fetch(await attempt.prepare())
   * while (attempt.failed(response.status) === 'resend') response = await fetch(attempt.send())
   * ```
   */
  attempt(url: string): CdnAttempt {
    return new CdnAttempt(this.#attempts, url)
  }

  /**
   * Whether an answer of `status` for `url` is its CDN's failure; one CDN: `undefined`.
   *
   * @deprecated {@link attempt}: a {@link CdnAttempt} classifies and moves in one step.
   * @example
   * ```ts
   * refresher.cdnFailureOf(url, 503) // 'server-error'
   * ```
   */
  cdnFailureOf(url: string, status: number): CdnFailure | undefined {
    return this.#cdns.lane?.failureOf(url, status, this.#attempts.fresh(url))
  }

  /**
   * `url` failed on its CDN: the next one takes the video; whether a retry goes elsewhere.
   *
   * @deprecated {@link attempt}: a {@link CdnAttempt} classifies and moves in one step.
   * @example
   * ```ts
   * if (refresher.cdnFailed(url, 'timeout')) send(refresher.rewrite(url))
   * ```
   */
  cdnFailed(url: string, failure: CdnFailure): boolean {
    return !!this.#cdns.lane?.failedAt(url, failure)
  }

  /**
   * Whether `url` belongs to this refresher's video (either CDN host, any pair): what
   * {@link rewrite} would move. No side effect.
   *
   * @example
   * ```ts
   * const owner = refreshers.find((refresher) => refresher.owns(failedUrl))
   * ```
   */
  owns(url: string): boolean {
    return this.#cdns.rewrite(url) !== undefined
  }

  /**
   * Moves `url` onto the current token pair and host when it belongs to this video; other URLs
   * are returned unchanged. Starts a background refresh when the token is stale.
   *
   * @example
   * ```ts
   * vhs.xhr.onRequest((options) => ({ ...options, uri: refresher.rewrite(options.uri) }))
   * ```
   */
  rewrite(url: string): string {
    const rewritten = this.#cdns.rewrite(url)
    if (rewritten === undefined) return url
    this.#cdns.lane?.sent(rewritten)
    this.#timer.demand()
    // failures are reported through onError and the error event
    void this.#refreshIfStale()
    return rewritten
  }

  /**
   * Like {@link rewrite}, but when the token is stale waits (at most `maxWaitMs`) for the
   * refresh first, so the request leaves with a fresh pair. Never rejects.
   *
   * @example
   * ```ts
   * context.url = await refresher.prepare(context.url)
   * ```
   */
  async prepare(url: string): Promise<string> {
    // its failure is reported and retried by the refresher; a request that waits on it just goes
    const pending = this.#refreshIfStale()
    // valid (or refused, its refresh under way): the refresh, bounded; then a failed one's retry
    if (pending && !this.expired)
      await waitAtMost(pending, this.#settings.maxWaitMs, this.#settings.timers)
    const waiting = !!(this.#fetches.current || this.#timer.failures)
    // Expired on an unchecked clock (no Date ever came) with a record in hand: the viewer's
    // clock may be the wrong one, so the request goes and the CDN decides.
    if (
      this.expired &&
      (waiting || this.#server.known) &&
      !this.destroyed &&
      !this.#refused &&
      this.owns(url)
    )
      // the expired (or refused) token would only be refused: wait for the next record (bounded)
      await this.#timer.awaitRecord(waiting)
    return this.rewrite(url)
  }

  /**
   * Reacts to a 403/410 answer for `failedUrl`: returns whether retrying it can succeed. A URL
   * on an older pair just needs the current one; a failure of the current token triggers one
   * refresh (once per token); while a failed refresh's retry is armed, `true`: {@link prepare}
   * holds the retry for the next token (at most `maxOutageWaitMs`), never sends the refused one
   * meanwhile. When {@link MAX_REJECTED_TOKENS} tokens in a row are refused, the
   * CDN rejects every token: one {@link TokenRejectedError} is reported and every later call
   * answers `false`, so the player fails in bounded time instead of looping. Given `status`, a
   * `410` (the CDN says: expired) counts towards that only for a token that had just come in.
   *
   * @example
   * ```ts
   * if ((status === 403 || status === 410) && refresher.recover(url, status)) retry()
   * ```
   */
  recover(failedUrl: string, status?: number): boolean {
    const pair = findTokenPair(failedUrl)
    if (!pair || this.destroyed || this.rejected || !this.owns(failedUrl)) return false
    // the URL's own CDN: a service worker fails over without telling the page's refresher
    const cdn = this.#cdns.cdnOf(failedUrl)
    const current = this.#cdns.tokenOf(cdn)
    this.#timer.demand()
    if (pair.token !== current || this.#fetches.current) return true
    const verdict = this.#rejections.refused(current, this.expired, status, this.#timer.now)
    if (verdict === 'give-up') this.#report(new TokenRejectedError(this.#rejections.inARow))
    // a refresh failed and its retry is armed: the request waits for it (prepare holds)
    else if (this.#timer.failures) return true
    if (verdict !== 'refresh') return false
    void this.#fetches.run(() =>
      replacingFetch(
        () => this.#fetch(),
        // a token of the same second is the refused one again
        () => this.#cdns.tokenOf(cdn) === current,
        () => this.destroyed,
        this.#settings.timers,
      ),
    )
    return true
  }

  /**
   * Fetches a new record now (concurrent calls share one `getToken` call).
   *
   * @example
   * ```ts
   * document.addEventListener('online', () => refresher.refresh())
   * ```
   */
  refresh(): Promise<TokenRecord> {
    // ended: no call of getToken (under stream limits it would renew an ended stream)
    if (this.destroyed) return Promise.resolve(this.#record)
    return this.#fetches.run(() => this.#fetch())
  }

  /**
   * Takes a record another refresher of the same video fetched (through `peers`), when it
   * expires later than the current one: reported like a refresh of this refresher.
   *
   * @example
   * ```ts
   * peers.share(record, fetchingRefresher) // calls receive on the other refreshers of the video
   * ```
   */
  receive(record: TokenRecord): void {
    if (this.destroyed || this.#refused || record.expires <= this.#record.expires) return
    this.#receive(record)
  }

  async #fetch(): Promise<TokenRecord> {
    // a refused stream stays refused: a fetch now would start a new one (evicted, re-admitted…)
    if (this.#refused) throw this.#refused
    this.#timer.fetching()
    try {
      const record = await nextRecord(this.#settings, this.#record, this.#ending.signal)
      if (this.destroyed) return record
      assertUnexpired(record)
      this.#receive(record)
      this.#settings.peers?.share(record, this)
      return record
    } catch (error) {
      if (this.destroyed) throw error
      if (isStreamRefusal(error)) this.#refused = error
      this.#report(error)
      // terminal, like a give-up: no retry, no more refreshes (nor records from peers)
      if (this.#refused) this.#timer.stop()
      else this.#timer.failed(retryAfterOf(error))
      throw error
    }
  }

  /** A new record comes in (fetched or from a peer): hold it, announce it, plan the next. */
  #receive(record: TokenRecord): void {
    this.#rejections.replaced(this.token, this.#timer.now)
    this.#record = record
    void this.#cdns.follow(record)
    this.#server.take(record)
    this.refreshCount++
    announceRecord(this, this.#settings.onTokenRefreshed, record)
    this.#timer.renewed()
  }

  /** Refreshes now when the token is stale and the rate bound allows (no retry is pending). */
  #refreshIfStale(): Promise<TokenRecord> | undefined {
    if (this.destroyed || this.#refused) return undefined
    return this.#fetches.current ?? (this.#timer.due(this.stale) ? this.refresh() : undefined)
  }

  /**
   * Stops every timer and listener and aborts a `getToken` call in flight (its context's
   * `signal`); later refreshes and events are dropped, and `refresh()` calls nothing.
   */
  destroy(): void {
    this.#ending.abort()
    this.#leavePeers?.()
    this.#leavePeers = undefined
    this.#cdns.stop()
    this.#timer.stop()
  }

  #report(error: unknown): void {
    reportError(this, this.#settings.onError, error)
  }
}
