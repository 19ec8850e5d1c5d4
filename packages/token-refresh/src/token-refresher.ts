import { findTokenPair } from '@proj/signing/url'
import { serverDateOf } from './fetch-token.ts'
import { MAX_REJECTED_TOKENS, TokenRejectedError } from './recovery.ts'
import { pagePeers, type TokenPeer, type TokenPeers } from './token-peers.ts'
import { assertTokenRecord } from './token-record.ts'
import type { Clock, TimerHandle, Timers, TokenRecord, TokenRefreshOptions } from './types.ts'
import { urlRewriter } from './url-rewriter.ts'

const systemClock: Clock = { now: () => Date.now() }
const systemTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle),
}
// setTimeout overflows above 2^31-1 ms and fires at once; long tokens re-arm instead.
const MAX_TIMER_MS = 2 ** 31 - 1
/** A backend's Retry-After is honoured up to this once the token has expired (5 min). */
const MAX_RETRY_AFTER_MS = 300_000
/** How recent a request must be for playback to count as waiting for a token (ms). */
const DEMAND_WINDOW_MS = 10_000

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
 * backoff and reported through `onError` and an `error` event.
 *
 * Events: `tokenrefreshed` and `error`, both `CustomEvent`s with the record or error as `detail`.
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
export class TokenRefresher extends EventTarget implements TokenPeer {
  /** Successful refreshes so far (the initial fetch is not counted). */
  refreshCount = 0
  #options: TokenRefreshOptions
  #clock: Clock
  #timers: Timers
  #record!: TokenRecord
  #rewrite!: (url: string) => string | undefined
  /** Estimated server clock minus client clock (ms). */
  #offset = 0
  #inflight: Promise<TokenRecord> | undefined
  #timer: TimerHandle | undefined
  #failures = 0
  /** Client time (ms) at which the timer refreshes: inside the spread window before staleAt. */
  #refreshAt = 0
  /** Until the first refresh: the rate bound is half the spread, so the first window can be wide. */
  #firstCycle = true
  #peers: TokenPeers | null
  #leavePeers: (() => void) | undefined
  /** `retry` with its defaults. */
  #retry: Required<NonNullable<TokenRefreshOptions['retry']>>
  /** Client time of the last getToken call (the rate bound counts from it). */
  #lastFetch = 0
  /** The token whose 403/410 already triggered a refresh: each token may do so once. */
  #recoveredToken = ''
  /** Tokens in a row the CDN refused (reset by a token replaced without a refusal). */
  #rejectedInARow = 0
  /** Set once the CDN refused MAX_REJECTED_TOKENS in a row: no more recovery. */
  #gaveUp = false
  /** Resolvers of requests waiting for a new record (an outage). */
  #waiting = new Set<() => void>()
  /** Client time of the last request of this video (rewrite, prepare, recover): playback needs tokens. */
  #lastDemand = Number.NEGATIVE_INFINITY
  /** Client time at which the armed timer fires. */
  #timerDue = 0
  #destroyed = false
  #onVisible = () => {
    if (!this.#options.visibility?.hidden) this.#schedule(0)
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
    const lead = options.refreshLeadSeconds
    if (!(lead > 0) || !Number.isFinite(lead))
      throw new RangeError(`refreshLeadSeconds must be a number > 0, got ${lead}`)
    const refresher = new TokenRefresher(options)
    const spread = refresher.#spreadMs() / 1000
    if (!(spread >= 0) || !Number.isFinite(spread))
      throw new RangeError(`refreshSpreadSeconds must be a number >= 0, got ${spread}`)
    refresher.#lastFetch = refresher.#clock.now()
    refresher.#accept(assertTokenRecord(await options.getToken()))
    const lifetime = refresher.#record.expires - refresher.serverNow() / 1000
    const tooLong = lead >= lifetime
    const problem = `refreshLeadSeconds (${lead}) ${tooLong ? 'must be below' : 'is outside the recommended 20–30 % of'} the token lifetime (${Math.round(lifetime)} s)`
    // Without the server's Date the lifetime is measured on the viewer's clock, which may be
    // wrong by hours: only a warning then, as refusing would break playback.
    if (tooLong && serverDateOf(refresher.#record) !== undefined) {
      refresher.destroy()
      throw new RangeError(problem)
    }
    if (tooLong || lead < lifetime * 0.2 || lead > lifetime * 0.3)
      console.warn(`[token-refresh] ${problem}`)
    refresher.#options.visibility?.addEventListener('visibilitychange', refresher.#onVisible)
    refresher.#leavePeers = refresher.#peers?.join(refresher.#record, refresher)
    refresher.#plan()
    refresher.#schedule()
    return refresher
  }

  private constructor(options: TokenRefreshOptions) {
    super()
    this.#options = {
      visibility: typeof document === 'undefined' ? null : document,
      ...options,
    }
    this.#clock = options.clock ?? systemClock
    this.#timers = options.timers ?? systemTimers
    this.#peers = options.peers === undefined ? pagePeers : options.peers
    this.#retry = { baseMs: 500, maxMs: 30_000, expiredMaxMs: 3000, ...options.retry }
  }

  /** The current record. */
  get record(): TokenRecord {
    return this.#record
  }

  /** The master playlist URL to play: `url`, or `url_ip` when `ipBound`. */
  get url(): string {
    return this.#options.ipBound ? this.#record.url_ip : this.#record.url
  }

  /** The server's clock as estimated from the last `Date` header (ms). */
  serverNow(): number {
    return this.#clock.now() + this.#offset
  }

  /** Whether URLs are moved onto `url_ip`/`token_ip` (the `ipBound` option). */
  get ipBound(): boolean {
    return this.#options.ipBound ?? false
  }

  /**
   * When the current token enters its lead window, on the viewer's clock (ms, like `Date.now()`):
   * what a helper without the server clock (a service worker) compares its own clock with.
   */
  get staleAt(): number {
    return (this.#record.expires - this.#options.refreshLeadSeconds) * 1000 - this.#offset
  }

  /**
   * When the current token expires, on the viewer's clock (ms, like `Date.now()`): what a helper
   * without the server clock (a service worker) holds requests against during an outage.
   */
  get expiresAt(): number {
    return this.#record.expires * 1000 - this.#offset
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
    return this.#gaveUp
  }

  /** Whether the current token is inside its lead window (or expired) on the server's clock. */
  get stale(): boolean {
    return this.#clock.now() >= this.staleAt
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
      // An outage longer than the token's life: a request with the expired token would only be
      // refused (and burn the player's retries), so it waits for the next record (bounded).
      this.#demand()
      let done: (() => void) | undefined
      const arrived = new Promise<void>((resolve) => {
        done = resolve
        this.#waiting.add(resolve)
      })
      await this.#until(arrived, this.#options.maxOutageWaitMs ?? 30_000)
      if (done) this.#waiting.delete(done)
    } else if (pending) {
      await this.#until(
        pending.catch(() => undefined),
        this.#options.maxWaitMs ?? 5000,
      )
    }
    return this.#rewrite(url) ?? url
  }

  /** Waits for `promise`, at most `ms`. */
  async #until(promise: Promise<unknown>, ms: number): Promise<void> {
    let timer: TimerHandle | undefined
    await Promise.race([
      promise,
      new Promise((resolve) => {
        timer = this.#timers.set(() => resolve(undefined), ms)
      }),
    ])
    if (timer !== undefined) this.#timers.clear(timer)
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
    if (!pair || this.#destroyed || this.#gaveUp || !this.owns(failedUrl)) return false
    const current = this.#currentToken()
    this.#demand()
    if (pair.token !== current) return true
    if (this.#inflight) return true
    if (this.#recoveredToken === current) return false
    this.#recoveredToken = current
    // an expired token refused is no news about the CDN; a valid one refused is
    if (!this.expired && ++this.#rejectedInARow >= MAX_REJECTED_TOKENS) {
      this.#gaveUp = true
      this.#report(new TokenRejectedError(this.#rejectedInARow))
      return false
    }
    this.refresh().catch(() => undefined)
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
    this.#inflight ??= this.#fetch().finally(() => {
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
   * peers.share(record, fetchingRefresher) // calls adopt on the other refreshers of the video
   * ```
   */
  adopt(record: TokenRecord): void {
    if (this.#destroyed || record.expires <= this.#record.expires) return
    this.#failures = 0
    this.#announce(record)
  }

  /** Stops every timer and listener; later refreshes and events are dropped. */
  destroy(): void {
    this.#destroyed = true
    this.#releaseWaiting()
    this.#leavePeers?.()
    this.#leavePeers = undefined
    if (this.#timer !== undefined) this.#timers.clear(this.#timer)
    this.#timer = undefined
    this.#options.visibility?.removeEventListener('visibilitychange', this.#onVisible)
  }

  async #fetch(): Promise<TokenRecord> {
    this.#lastFetch = this.#clock.now()
    try {
      const record = assertTokenRecord(await this.#options.getToken())
      if (this.#destroyed) return record
      this.#failures = 0
      this.#announce(record)
      this.#peers?.share(record, this)
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

  /**
   * A request of this video is being made. While the token is expired and a retry is planned far
   * off (the backend was failing while nothing played), it is brought forward: playback waits.
   */
  #demand(): void {
    const now = this.#clock.now()
    this.#lastDemand = now
    if (this.#failures === 0 || this.#inflight || this.#timer === undefined || !this.expired) return
    if (this.#timerDue - now > this.#retry.expiredMaxMs) this.#schedule(this.#backoff())
  }

  /** The token this refresher's URLs carry (`token_ip` when `ipBound`). */
  #currentToken(): string {
    return this.#options.ipBound ? this.#record.token_ip : this.#record.token
  }

  /** How long the current token stays valid, on the server's clock (ms; ≤ 0 once expired). */
  #remainingMs(): number {
    return this.#record.expires * 1000 - this.serverNow()
  }

  /** Lets every request waiting for a new record go (it arrived, or the refresher is gone). */
  #releaseWaiting(): void {
    for (const release of this.#waiting) release()
    this.#waiting.clear()
  }

  #report(error: unknown): void {
    const { onError } = this.#options
    if (onError) onError(error)
    else console.warn('[token-refresh] refresh failed', error)
    this.dispatchEvent(new CustomEvent('error', { detail: error }))
  }

  #announce(record: TokenRecord): void {
    // the outgoing token was never refused: the run of refusals is broken
    if (this.#recoveredToken !== this.#currentToken()) this.#rejectedInARow = 0
    this.#accept(record)
    this.#firstCycle = false
    this.#plan()
    this.refreshCount++
    this.#options.onTokenRefreshed?.(record)
    this.dispatchEvent(new CustomEvent('tokenrefreshed', { detail: record }))
    this.#releaseWaiting()
    this.#schedule()
  }

  /**
   * Picks the timer's refresh moment, uniformly in a window that ends at the lead time: the
   * spread before it, or for the first cycle everything from half the spread after the initial
   * fetch (the steady period's length, so the first cycle of a herd is as flat as later ones).
   */
  #plan(): void {
    const spreadMs = this.#spreadMs()
    const end = this.staleAt
    const start = this.#firstCycle ? this.#clock.now() + spreadMs / 2 : end - spreadMs
    const random = this.#options.random ?? Math.random
    this.#refreshAt = spreadMs > 0 ? end - random() * Math.max(0, end - start) : end
  }

  #accept(record: TokenRecord): void {
    const serverDate = serverDateOf(record)
    if (serverDate !== undefined) this.#offset = serverDate - this.#clock.now()
    this.#record = record
    this.#rewrite = urlRewriter(record, this.#options.ipBound ?? false)
  }

  /**
   * Jittered exponential backoff; capped at half the remaining validity (and `maxMs`), and once
   * expired at `expiredMaxMs` while playback is asking for the video (seconds, not tens of
   * seconds), else at `maxMs` (a paused player does not hammer a failing backend).
   */
  #backoff(): number {
    const { baseMs, maxMs, expiredMaxMs } = this.#retry
    const remaining = this.#remainingMs()
    // playback needs a token when one of its requests came in the last DEMAND_WINDOW_MS
    const needed = this.#waiting.size > 0 || this.#clock.now() - this.#lastDemand < DEMAND_WINDOW_MS
    const cap =
      remaining > 0
        ? Math.min(maxMs, Math.max(baseMs, remaining / 2))
        : needed
          ? Math.max(baseMs, expiredMaxMs)
          : maxMs
    const random = this.#options.random ?? Math.random
    return Math.min(cap, baseMs * 2 ** (this.#failures - 1)) * (0.5 + random() / 2)
  }

  /**
   * The backoff, or what the backend asked for (`retryAfterMs` of the error: a 429 or 503 with
   * `Retry-After`) when longer: never sooner, except that a still-valid token is not let expire
   * for it (the viewer gets one try at expiry), and once expired at most `MAX_RETRY_AFTER_MS`.
   */
  #retryDelay(error: unknown): number {
    const backoff = this.#backoff()
    const asked = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs
    if (typeof asked !== 'number' || !(asked > 0)) return backoff
    const remaining = this.#remainingMs()
    return Math.max(backoff, Math.min(asked, remaining > 0 ? remaining : MAX_RETRY_AFTER_MS))
  }

  /** The earliest client time (ms) at which a timer or on-demand refresh may start. */
  #nextAllowed(): number {
    const spread = this.#spreadMs()
    const bound =
      this.#firstCycle && spread > 0 ? spread / 2 : this.#options.refreshLeadSeconds * 1000
    return this.#lastFetch + Math.max(1000, bound)
  }

  #spreadMs(): number {
    const lead = this.#options.refreshLeadSeconds
    return (this.#options.refreshSpreadSeconds ?? lead / 4) * 1000
  }

  #refreshIfStale(): Promise<TokenRecord> | undefined {
    if (this.#destroyed) return undefined
    if (this.#inflight) return this.#inflight
    if (!this.stale || this.#failures > 0 || this.#clock.now() < this.#nextAllowed()) return
    return this.refresh()
  }

  /** Arms the timer: after `delay` ms, or at the planned moment (never before the rate bound). */
  #schedule(delay?: number): void {
    if (this.#destroyed) return
    if (this.#timer !== undefined) this.#timers.clear(this.#timer)
    const wait = delay ?? Math.max(this.#refreshAt, this.#nextAllowed()) - this.#clock.now()
    const ms = Math.min(Math.max(0, wait), MAX_TIMER_MS)
    this.#timerDue = this.#clock.now() + ms
    this.#timer = this.#timers.set(() => {
      this.#timer = undefined
      if (this.#inflight) return
      if (delay !== undefined && this.#failures > 0) this.refresh().catch(() => undefined)
      else if (this.#clock.now() >= Math.max(this.#refreshAt, this.#nextAllowed()))
        this.refresh().catch(() => undefined)
      else this.#schedule()
    }, ms)
  }
}
