import { cdnFailureOf, isTokenRefusal } from '@proj/signing/cdn-failure'
import type { CdnLane, LaneRequest } from './cdn-lane.ts'
import { MAX_RECOVERY_RETRIES } from './recovery.ts'
import type { Timers } from './types.ts'

/**
 * What became of one sending of a request, as the player's seam tells it: the CDN's HTTP
 * status (`0`: no answer at all), `'timeout'` (no first byte in time: the player's own timeout,
 * or the attempt's), or `'local'` (sending failed on this side, e.g. a hook of the page threw:
 * never a reason to leave a CDN).
 */
export type AttemptOutcome = number | 'timeout' | 'local'

/**
 * What a {@link CdnAttempt} answers about a failed sending:
 * - `'resend'`: send again at once ({@link CdnAttempt.send}): another CDN takes the request;
 * - `'refresh'`: the token was refused and a new one can help: send again once
 *   {@link CdnAttempt.prepare} resolves (a player whose own retry passes through the same hook
 *   may let that retry do it);
 * - `'fail'`: the token was refused and nothing can help, or the request was refused
 *   `MAX_RECOVERY_RETRIES` times already: let it fail now, without the player's retries;
 * - `undefined`: nothing this attempt acts on (a success, a 404, a failure with no other CDN to
 *   go to): the player does what it does without us.
 */
export type AttemptNext = 'resend' | 'refresh' | 'fail' | undefined

/** What a {@link CdnAttempt} needs from the owner of the video's records. */
export interface AttemptHost {
  /** `url` on the CDN in use, with that CDN's current pair (other URLs unchanged). */
  rewrite(url: string): string
  /** The same, after waiting (bounded) for a due refresh. */
  prepare(url: string): Promise<string>
  /** The video's CDN lane, with several CDNs (loaded); `undefined` with one. */
  lane(): CdnLane | undefined
  /** The CDN whose host `url` is on, when `url` is the video's. */
  cdnOf(url: string): string | undefined
  /** Whether the token `url` carries is still valid (a refusal of it is then the CDN's fault). */
  fresh(url: string): boolean
  /** The CDN refused the token of `url` with `status`: whether sending again can succeed (the refresher's `recover`). */
  recover(url: string, status?: number): boolean
  /** The timers of the first-byte bound. */
  timers: Timers
  /** Token refusals after which a request fails (default `MAX_RECOVERY_RETRIES`). */
  refusalRetries?: number
}

/**
 * One request of the video, from its first sending to its last: the URL to send each time, and
 * what to do when a sending fails. Every adapter translates its player's seam to it (hls.js's
 * loader and load policies, VHS's xhr, Shaka's networking engine, the service worker's fetch):
 *
 * - each sending goes to the CDN in use with that CDN's current pair ({@link send}, or
 *   {@link prepare} to wait for a due refresh first): a token goes only to the CDN that signed it;
 * - with several CDNs, a failure of the CDN (a fresh token refused, a 5xx, no answer, or no
 *   first byte within the lane's `timeoutMs`, see {@link watch}) moves the request, and the
 *   video's later requests, to the next CDN at once, never twice to one CDN within a request
 *   (the lane decides: `CdnLane.request`);
 * - a refused token (403/410) starts the refresher's recovery, and the request is sent again with
 *   the new pair at most `MAX_RECOVERY_RETRIES` times.
 *
 * A player may ask twice about one failure (hls.js: its retry policy, then its error callback):
 * the answer for a sending is given once and repeated.
 *
 * @example
 * ```ts
 * const attempt = refresher.attempt(url)
 * let response = await fetch(attempt.send())
 * while (attempt.failed(response.status) === 'resend') response = await fetch(attempt.send())
 * ```
 */
export class CdnAttempt {
  readonly #host: AttemptHost
  /** The URL of the last sending (at first the one asked for). */
  #url: string
  /** With several CDNs, the request as the lane follows it (its CDNs so far, its timer). */
  #cdn: LaneRequest | undefined
  #refusals = 0
  /** The answer about the current sending, once given (`null`: not asked yet). */
  #next: AttemptNext | null = null

  constructor(host: AttemptHost, url: string) {
    this.#host = host
    this.#url = url
    this.#cdn = host.lane()?.request(host.timers, host.cdnOf(url) !== undefined)
  }

  /** The URL of the last sending (before the first: the URL asked for). */
  get url(): string {
    return this.#url
  }

  /**
   * How long a sending may wait for its first byte before it counts as its CDN's failure (ms):
   * with several CDNs, for the video's URLs; `undefined` otherwise (the player's own timeouts).
   */
  get timeoutMs(): number | undefined {
    return this.#cdn?.timeoutMs
  }

  /** A new sending: the request's URL on the CDN in use, with its current pair. */
  send(): string {
    return this.#sending(this.#host.rewrite(this.#url))
  }

  /** Like {@link send}, after waiting (bounded) for a due refresh. Never rejects. */
  async prepare(): Promise<string> {
    return this.#sending(await this.#host.prepare(this.#url))
  }

  /**
   * Bounds the current sending's wait for its first byte by {@link timeoutMs} (several CDNs
   * only): when it runs out and `firstByte()` is still false, the sending is the CDN's failure
   * and, when another CDN takes it, `resend()` is called (abort the slow sending there, then
   * {@link send}). Ended by {@link end}, a new sending, or a failure told.
   */
  watch(firstByte: () => boolean, resend: () => void): void {
    this.#cdn?.watch(firstByte, () => this.failed('timeout') === 'resend' && resend())
  }

  /** Stops the first-byte timer (the sending answered, or was aborted). */
  end(): void {
    this.#cdn?.end()
  }

  /**
   * The current sending failed with `outcome`: what now (see {@link AttemptNext}). With
   * `{ recover: false }` a refused token is left alone (`undefined`): for a player whose own
   * retry policy asks the refresher's `recover` (hls.js).
   */
  failed(outcome: AttemptOutcome, { recover = true }: { recover?: boolean } = {}): AttemptNext {
    this.end()
    // `undefined` is an answer too: asked again, the same
    if (this.#next === null) this.#next = this.#judge(outcome, recover)
    return this.#next
  }

  #sending(url: string): string {
    const host = this.#host
    this.#url = url
    this.#next = null
    // a lane that came in after the request was made follows it from this sending on
    this.#cdn ??= host.lane()?.request(host.timers, true)
    this.#cdn?.sent(host.cdnOf(url))
    return url
  }

  #judge(outcome: AttemptOutcome, recover: boolean): AttemptNext {
    if (outcome === 'local') return undefined
    const host = this.#host
    const url = this.#url
    const cdn = this.#cdn
    // several CDNs: a failure of the CDN goes to the next one, when the lane says so
    const failure =
      cdn &&
      (outcome === 'timeout' ? outcome : cdnFailureOf(outcome, { tokenFresh: host.fresh(url) }))
    if (failure && cdn.takes(failure)) return 'resend'
    if (!recover || outcome === 'timeout' || !isTokenRefusal(outcome)) return undefined
    // every refusal goes to the refresher, past the budget too: the last token's refusal is what
    // tells it that the CDN refuses them all
    const recovers = host.recover(url, outcome)
    const budget = host.refusalRetries ?? MAX_RECOVERY_RETRIES
    return recovers && this.#refusals++ < budget ? 'refresh' : 'fail'
  }
}
