import { findTokenPair } from '@proj/signing/url'
import {
  type CdnChange,
  type CdnFailover,
  type CdnFailure,
  type CdnFailureReason,
  classifyCdnFailure,
  createCdnFailover,
} from './cdn-failover.ts'
import { retryAfterOf, serverDateOf } from './fetch-token.ts'
import { HeldRequests, waitAtMost } from './held-requests.ts'
import { TokenRejectedError } from './recovery.ts'
import {
  backoffDelay,
  earliestRefreshAt,
  outageRetryIsLate,
  planRefreshAt,
  playbackWaiting,
  retryDelay,
  timerDelay,
} from './refresh-schedule.ts'
import { leadProblem, type RefreshSettings, resolveRefreshSettings } from './refresh-settings.ts'
import { RejectionTracker } from './rejection-tracker.ts'
import type { TokenPeer } from './token-peers.ts'
import { assertTokenRecord } from './token-record.ts'
import type { Clock, TimerHandle, TokenRecord, TokenRefreshOptions } from './types.ts'
import { type CdnRewriter, cdnRewriter } from './url-rewriter.ts'

/** Backends sign by the second: a token fetched a second later differs from the one before. */
const ONE_SECOND_MS = 1000

/**
 * The events of a {@link TokenRefresher}, for typed listeners:
 * `refresher.addEventListener('tokenrefreshed', (event) => event.detail.expires)`.
 */
export interface TokenRefresherEventMap {
  /** A new record is in (a refresh, or a peer's record); `detail` is the record. */
  tokenrefreshed: CustomEvent<TokenRecord>
  /**
   * A refresh failed (playback goes on while the token is valid), or the CDN refused every new
   * token ({@link TokenRejectedError}); `detail` is the error.
   */
  error: CustomEvent<Error>
  /** Playback moved to another CDN (records with `cdns` only); `detail` says from, to and why. */
  cdnchange: CustomEvent<CdnChange>
}

/**
 * Typed `addEventListener`/`removeEventListener` for the events of {@link TokenRefresherEventMap}
 * (the DOM's pattern), merged into {@link TokenRefresher}: types only, EventTarget's methods run.
 *
 * @example
 * ```ts
 * refresher.addEventListener('tokenrefreshed', (event) => console.log(event.detail.expires))
 * ```
 */
export interface TokenRefresher {
  addEventListener<K extends keyof TokenRefresherEventMap>(
    type: K,
    listener: (this: TokenRefresher, event: TokenRefresherEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ): void
  removeEventListener<K extends keyof TokenRefresherEventMap>(
    type: K,
    listener: (this: TokenRefresher, event: TokenRefresherEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | EventListenerOptions,
  ): void
}

/** Server clock minus client clock (ms) as a record's `Date` tells it; `previous` without one. */
function clockOffset(record: TokenRecord, clock: Clock, previous: number): number {
  const serverDate = serverDateOf(record)
  return serverDate === undefined ? previous : serverDate - clock.now()
}

/**
 * Keeps the current token record of one video and the player's URLs on it (spec 4.15).
 *
 * Refreshes at a random moment of the `refreshSpreadSeconds` before the lead time (never later
 * than `refreshLeadSeconds` before `expires`), measured on the server's clock when the record
 * came through `fetchToken`, so an audience that got the same `expires` does not refresh in the
 * same second; the first refresh is spread over the whole first lifetime. Also refreshes on
 * demand when a request is about to leave inside the lead window (background tabs, sleeping
 * laptops) and when the page becomes visible. Refreshers of the same video on one page share
 * each new record (`peers`), so they make one `getToken` call per cycle between them.
 * Timer and on-demand refreshes are rate-bounded (at most one per lead time), so a client
 * clock wrong by hours cannot cause a storm; failures are retried with jittered exponential
 * backoff and reported through `onError` and an `error` event. The arithmetic of all that lives
 * in `refresh-schedule.ts`, the defaults in `refresh-settings.ts`.
 *
 * With several CDNs (records with `cdns`), URLs go to the active one with its own token, and
 * adapters report failures through {@link cdnFailureOf}/{@link cdnFailed}: playback moves to
 * the next CDN, stays there, and returns to the preferred one once a probe finds it well
 * (`cdn-failover.ts`).
 *
 * Events: `tokenrefreshed`, `error` and `cdnchange`, `CustomEvent`s with the record, the error
 * or the change as `detail` ({@link TokenRefresherEventMap}: typed listeners).
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
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above only types EventTarget's own methods
export class TokenRefresher extends EventTarget implements TokenPeer {
  /** Successful refreshes so far (the initial fetch is not counted). */
  refreshCount = 0
  readonly #settings: RefreshSettings
  readonly #clock: Clock
  #record: TokenRecord
  /** Every CDN of the record: which one a URL is on, and how to move it onto another. */
  #cdns: CdnRewriter
  /** Which CDN is active, with two or more CDNs (`undefined` with one). */
  #failover: CdnFailover | undefined
  /** Ends the running probe (its timeout and request), if any. */
  #endProbe: (() => void) | undefined
  /** The last URL of this video rewritten: what a probe of the preferred CDN asks for. */
  #lastUrl: string | undefined
  /** Estimated server clock minus client clock (ms), from the last record with a `Date`. */
  #offset: number
  readonly #rejections = new RejectionTracker()
  /** The refresh under way; concurrent callers share it. */
  #inflight: Promise<TokenRecord> | undefined
  /** Failed refreshes in a row (0 once one succeeds or a peer's record comes in). */
  #failures = 0
  /** Client time of the last getToken call (the rate bound counts from it). */
  #lastFetchAt: number
  /** Until the first refresh: the rate bound is half the spread, so the first window can be wide. */
  #firstCycle = true
  /** Client time at which the timer refreshes: inside the spread window before staleAt. */
  #refreshAt = 0
  #timer: TimerHandle | undefined
  /** Client time at which the armed timer fires. */
  #timerDueAt = 0
  /** Client time of the last request of this video (rewrite, prepare, recover): playback needs tokens. */
  #lastDemandAt = Number.NEGATIVE_INFINITY
  /** Requests waiting for a new record while the token is expired (an outage). */
  readonly #held = new HeldRequests()
  #leavePeers: (() => void) | undefined
  #destroyed = false
  #onVisible = () => {
    if (!this.#settings.visibility?.hidden) this.#schedule(0)
  }

  /**
   * Fetches the initial record (before the player exists, as 4.15 asks), checks the lead
   * time against its lifetime and starts the schedule.
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
    const record = assertTokenRecord(await settings.getToken())
    const refresher = new TokenRefresher(settings, record, fetchedAt)
    const lifetime = record.expires - refresher.serverNow() / 1000
    const problem = leadProblem(options.refreshLeadSeconds, lifetime)
    // Without the server's Date the lifetime is measured on the viewer's clock, which may be
    // wrong by hours: only a warning then, as refusing would break playback.
    if (problem?.fatal && serverDateOf(record) !== undefined) throw new RangeError(problem.message)
    if (problem) console.warn(`[token-refresh] ${problem.message}`)
    refresher.#start()
    return refresher
  }

  private constructor(settings: RefreshSettings, record: TokenRecord, fetchedAt: number) {
    super()
    this.#settings = settings
    this.#clock = settings.clock
    this.#record = record
    this.#cdns = cdnRewriter(record, settings.ipBound)
    this.#failover = this.#failoverFor(this.#cdns.ids)
    this.#offset = clockOffset(record, settings.clock, 0)
    this.#lastFetchAt = fetchedAt
  }

  #start(): void {
    this.#settings.visibility?.addEventListener('visibilitychange', this.#onVisible)
    this.#leavePeers = this.#settings.peers?.join(this.#record, this)
    this.#plan()
    this.#schedule()
  }

  // ── The record ────────────────────────────────────────────────────────────

  /** The current record. */
  get record(): TokenRecord {
    return this.#record
  }

  /** The master playlist URL to play: `url`, or `url_ip` when `ipBound` (on the active CDN). */
  get url(): string {
    const url = this.ipBound ? this.#record.url_ip : this.#record.url
    return this.#failover ? (this.#rewrite(url) ?? url) : url
  }

  /** Whether URLs are moved onto `url_ip`/`token_ip` (the `ipBound` option). */
  get ipBound(): boolean {
    return this.#settings.ipBound
  }

  /** The server's clock as estimated from the last `Date` header (ms). */
  serverNow(): number {
    return this.#clock.now() + this.#offset
  }

  /**
   * When the current token enters its lead window, on the viewer's clock (ms, like `Date.now()`):
   * what a helper without the server clock (a service worker) compares its own clock with.
   */
  get staleAt(): number {
    return this.expiresAt - this.#settings.leadMs
  }

  /**
   * When the current token expires, on the viewer's clock (ms, like `Date.now()`): what a helper
   * without the server clock (a service worker) holds requests against during an outage.
   */
  get expiresAt(): number {
    return this.#record.expires * 1000 - this.#offset
  }

  /** Whether the current token is inside its lead window (or expired) on the server's clock. */
  get stale(): boolean {
    return this.#clock.now() >= this.staleAt
  }

  /** Whether the current token has expired, on the server's clock: requests with it are refused. */
  get expired(): boolean {
    return this.#remainingMs() <= 0
  }

  /**
   * Whether the CDN refused every new token ({@link TokenRejectedError} was reported): recovery
   * is over and the player is left to fail.
   */
  get rejected(): boolean {
    return this.#rejections.gaveUp
  }

  /** How long the current token stays valid, on the server's clock (ms; ≤ 0 once expired). */
  #remainingMs(): number {
    return this.#record.expires * 1000 - this.serverNow()
  }

  /** The token this refresher's URLs carry (`token_ip` when `ipBound`; the active CDN's). */
  #currentToken(): string {
    return this.#tokenOf(this.#failover?.active)
  }

  /** The current token of CDN `id` (`token_ip` when `ipBound`); the record's own for one CDN. */
  #tokenOf(id: string | undefined): string {
    const cdn = this.#record.cdns?.find((entry) => entry.id === id) ?? this.#record
    return this.ipBound ? cdn.token_ip : cdn.token
  }

  /** Moves a URL of this video onto the active CDN's host and pair; `undefined` for other URLs. */
  #rewrite(url: string): string | undefined {
    return this.#cdns.rewrite(url, this.#failover?.active ?? this.#cdns.ids[0] ?? '')
  }

  // ── Several CDNs (the state in cdn-failover.ts) ───────────────────────────

  /** The id of the CDN requests go to; `undefined` with one CDN (records without `cdns`). */
  get activeCdn(): string | undefined {
    return this.#failover?.active
  }

  /**
   * Time to first byte (ms) after which an adapter gives up an attempt and calls
   * {@link cdnFailed} with `'timeout'`; `undefined` with one CDN (the player's timeouts apply).
   */
  get cdnTimeoutMs(): number | undefined {
    return this.#failover ? this.#settings.cdn.timeoutMs : undefined
  }

  /**
   * Whether an answer of `status` for `url` is its CDN's failure (see `classifyCdnFailure`):
   * 403/410 while the URL's token is fresh on the server's clock, 5xx, 0 (no answer). Always
   * `undefined` with one CDN and for URLs of other videos. No side effect.
   *
   * @example
   * ```ts
   * const failure = refresher.cdnFailureOf(url, response.status)
   * if (failure && refresher.cdnFailed(url, failure)) retry(refresher.rewrite(url))
   * ```
   */
  cdnFailureOf(url: string, status: number): CdnFailure | undefined {
    if (!this.#failover || this.#cdns.cdnOf(url) === undefined) return undefined
    const pair = findTokenPair(url)
    const fresh = pair !== undefined && pair.expires * 1000 > this.serverNow()
    return classifyCdnFailure(status, fresh)
  }

  /**
   * The request for `url` failed on its CDN: when that is the active CDN, the next one by
   * priority (not cooling down) becomes active (a `cdnchange` event). Returns whether a retry
   * now goes to another CDN ({@link rewrite} moves `url` there), also when `url` was on a CDN
   * already left; `false` with one CDN, for URLs of other videos and when every other CDN
   * failed lately: then the adapter does what it does without failover.
   *
   * @example
   * ```ts
   * if (refresher.cdnFailed(url, 'timeout')) send(refresher.rewrite(url))
   * ```
   */
  cdnFailed(url: string, failure: CdnFailureReason): boolean {
    const id = this.#cdns.cdnOf(url)
    if (!this.#failover || this.#destroyed || id === undefined) return false
    return this.#failover.failed(id, failure)
  }

  /** A failover state for a record of `ids`, when it has several CDNs. */
  #failoverFor(ids: string[]): CdnFailover | undefined {
    if (ids.length < 2) return undefined
    const { clock, timers, cdn } = this.#settings
    return createCdnFailover(ids, cdn.cooldownMs, {
      clock,
      timers,
      probe: (id) => this.#probe(id),
      changed: (change) => this.dispatchEvent(new CustomEvent('cdnchange', { detail: change })),
    })
  }

  /**
   * Asks the probe whether CDN `id` serves the last URL (its host and token), within the timeout;
   * {@link destroy} ends it (timer and request) at once.
   */
  #probe(id: string): Promise<boolean> {
    const url =
      (this.#lastUrl && this.#cdns.rewrite(this.#lastUrl, id)) ??
      this.#cdns.rewrite(this.#record.url, id)
    const { timers, cdn } = this.#settings
    if (url === undefined) return Promise.resolve(false)
    const controller = new AbortController()
    return new Promise<boolean>((resolve) => {
      const end = () => {
        timers.clear(timer)
        controller.abort()
        resolve(false)
      }
      const timer = timers.set(end, cdn.timeoutMs)
      this.#endProbe = end
      cdn
        .probe(url, controller.signal)
        .then(resolve, () => resolve(false))
        .finally(() => timers.clear(timer))
    }).finally(() => {
      this.#endProbe = undefined
    })
  }

  // ── The player's requests ─────────────────────────────────────────────────

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
    return this.#rewrite(url) !== undefined
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
    const rewritten = this.#rewrite(url)
    if (rewritten === undefined) return url
    this.#lastUrl = rewritten
    this.#demand()
    // failures are reported through onError and the error event
    this.#refreshIfStale()?.catch(() => undefined)
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
    const pending = this.#refreshIfStale()
    if (this.expired && !this.#destroyed && this.owns(url)) {
      // the expired token would only be refused: wait for the next record (bounded)
      this.#demand()
      await this.#held.hold(this.#settings.maxOutageWaitMs, this.#settings.timers)
    } else if (pending) {
      await waitAtMost(pending, this.#settings.maxWaitMs, this.#settings.timers)
    }
    const rewritten = this.#rewrite(url)
    if (rewritten !== undefined) this.#lastUrl = rewritten
    return rewritten ?? url
  }

  /**
   * Reacts to a 403/410 answer for `failedUrl`: returns whether retrying it can succeed. A URL
   * on an older pair just needs the current one; a failure of the current token triggers one
   * refresh (once per token). When {@link MAX_REJECTED_TOKENS} tokens in a row are refused, the
   * CDN rejects every token: one {@link TokenRejectedError} is reported and every later call
   * answers `false`, so the player fails in bounded time instead of looping.
   *
   * @example
   * ```ts
   * if ((status === 403 || status === 410) && refresher.recover(url)) retry()
   * ```
   */
  recover(failedUrl: string): boolean {
    const pair = findTokenPair(failedUrl)
    if (!pair || this.#destroyed || this.rejected || !this.owns(failedUrl)) return false
    // the URL's own CDN: a service worker fails over without telling the page's refresher
    const cdn = this.#cdns.cdnOf(failedUrl)
    const current = this.#tokenOf(cdn)
    this.#demand()
    if (pair.token !== current || this.#inflight) return true
    const verdict = this.#rejections.refused(current, {
      expired: this.expired,
      now: this.#clock.now(),
    })
    if (verdict === 'give-up') this.#report(new TokenRejectedError(this.#rejections.inARow))
    if (verdict !== 'refresh') return false
    this.#single(() => this.#fetchReplacing(current, cdn)).catch(() => undefined)
    return true
  }

  /**
   * A refresh for the refused token `refused` of CDN `cdn`. Backends sign by the second (the token is a hash
   * of the path and the expiry), so a token fetched within the refused one's second is that
   * token again, which the retry would only see refused: then once more, a second later.
   */
  async #fetchReplacing(refused: string, cdn: string | undefined): Promise<TokenRecord> {
    const record = await this.#fetch()
    if (this.#tokenOf(cdn) !== refused || this.#destroyed) return record
    await new Promise((resolve) =>
      this.#settings.timers.set(() => resolve(undefined), ONE_SECOND_MS),
    )
    return this.#destroyed ? record : this.#fetch()
  }

  // ── New records ───────────────────────────────────────────────────────────

  /**
   * Fetches a new record now (concurrent calls share one `getToken` call).
   *
   * @example
   * ```ts
   * document.addEventListener('online', () => refresher.refresh())
   * ```
   */
  refresh(): Promise<TokenRecord> {
    return this.#single(() => this.#fetch())
  }

  /** Starts `work` unless a fetch is in flight, whose promise is then shared: one at a time. */
  #single(work: () => Promise<TokenRecord>): Promise<TokenRecord> {
    this.#inflight ??= work().finally(() => {
      this.#inflight = undefined
    })
    return this.#inflight
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
    if (this.#destroyed || record.expires <= this.#record.expires) return
    this.#receive(record)
  }

  async #fetch(): Promise<TokenRecord> {
    this.#lastFetchAt = this.#clock.now()
    try {
      const record = assertTokenRecord(await this.#settings.getToken())
      if (this.#destroyed) return record
      this.#receive(record)
      this.#settings.peers?.share(record, this)
      return record
    } catch (error) {
      if (!this.#destroyed) {
        this.#failures++
        this.#report(error)
        this.#schedule(this.#retryDelay(error))
      }
      throw error
    }
  }

  /** A new record comes in (fetched or from a peer): hold it, announce it, plan the next. */
  #receive(record: TokenRecord): void {
    this.#rejections.replaced(this.#currentToken(), this.#clock.now())
    this.#record = record
    this.#cdns = cdnRewriter(record, this.ipBound)
    // the active CDN stays: a refresh mid-outage must not bring playback back to the failing CDN
    if (this.#failover && this.#cdns.ids.length >= 2) this.#failover.update(this.#cdns.ids)
    else {
      this.#failover?.stop()
      this.#failover = this.#failoverFor(this.#cdns.ids)
    }
    this.#offset = clockOffset(record, this.#clock, this.#offset)
    this.#failures = 0
    this.#firstCycle = false
    this.#plan()
    this.refreshCount++
    this.#settings.onTokenRefreshed?.(record)
    this.dispatchEvent(new CustomEvent('tokenrefreshed', { detail: record }))
    this.#held.releaseAll()
    this.#schedule()
  }

  // ── The schedule (arithmetic in refresh-schedule.ts) ──────────────────────

  /** Picks the timer's refresh moment for the current record. */
  #plan(): void {
    const { spreadMs, random } = this.#settings
    this.#refreshAt = planRefreshAt(
      this.staleAt,
      this.#clock.now(),
      spreadMs,
      this.#firstCycle,
      random,
    )
  }

  /** The earliest client time (ms) at which a timer or on-demand refresh may start. */
  #earliestRefreshAt(): number {
    const { leadMs, spreadMs } = this.#settings
    return earliestRefreshAt(this.#lastFetchAt, leadMs, spreadMs, this.#firstCycle)
  }

  /** Arms the timer: after `delay` ms (a retry), or at the planned moment (never before the rate bound). */
  #schedule(delay?: number): void {
    if (this.#destroyed) return
    if (this.#timer !== undefined) this.#settings.timers.clear(this.#timer)
    const planned = () => Math.max(this.#refreshAt, this.#earliestRefreshAt())
    const ms = timerDelay(delay ?? planned() - this.#clock.now())
    this.#timerDueAt = this.#clock.now() + ms
    this.#timer = this.#settings.timers.set(() => {
      this.#timer = undefined
      if (this.#inflight) return
      const retrying = delay !== undefined && this.#failures > 0
      // a long wait was cut at MAX_TIMER_MS: re-arm until the planned moment
      if (retrying || this.#clock.now() >= planned()) this.refresh().catch(() => undefined)
      else this.#schedule()
    }, ms)
  }

  /** Refreshes now when the token is stale and the rate bound allows (no retry is pending). */
  #refreshIfStale(): Promise<TokenRecord> | undefined {
    if (this.#destroyed) return undefined
    if (this.#inflight) return this.#inflight
    if (!this.stale || this.#failures > 0 || this.#clock.now() < this.#earliestRefreshAt()) return
    return this.refresh()
  }

  /**
   * A request of this video is being made. While the token is expired and a retry is planned far
   * off (the backend was failing while nothing played), it is brought forward: playback waits.
   */
  #demand(): void {
    const now = this.#clock.now()
    this.#lastDemandAt = now
    if (this.#failures === 0 || this.#inflight || this.#timer === undefined || !this.expired) return
    if (outageRetryIsLate(now, this.#timerDueAt, this.#settings.retry))
      this.#schedule(this.#backoff())
  }

  #backoff(): number {
    const waiting = playbackWaiting(this.#clock.now(), this.#lastDemandAt, this.#held.size)
    const { retry, random } = this.#settings
    return backoffDelay(this.#failures, this.#remainingMs(), waiting, retry, random)
  }

  #retryDelay(error: unknown): number {
    return retryDelay(this.#backoff(), retryAfterOf(error), this.#remainingMs())
  }

  // ── Housekeeping ──────────────────────────────────────────────────────────

  /** Stops every timer and listener; later refreshes and events are dropped. */
  destroy(): void {
    this.#destroyed = true
    this.#held.releaseAll()
    this.#leavePeers?.()
    this.#leavePeers = undefined
    this.#failover?.stop()
    this.#endProbe?.()
    if (this.#timer !== undefined) this.#settings.timers.clear(this.#timer)
    this.#timer = undefined
    this.#settings.visibility?.removeEventListener('visibilitychange', this.#onVisible)
  }

  #report(error: unknown): void {
    const { onError } = this.#settings
    if (onError) onError(error)
    else console.warn('[token-refresh] refresh failed', error)
    // getToken may reject with anything; the event's detail is always an Error (the map says so)
    const detail = error instanceof Error ? error : new Error(String(error), { cause: error })
    this.dispatchEvent(new CustomEvent('error', { detail }))
  }
}
