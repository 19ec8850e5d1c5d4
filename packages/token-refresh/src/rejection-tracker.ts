import { MAX_REJECTED_TOKENS, REFUSAL_RUN_MS } from './recovery.ts'

/** What a refusal of the current token calls for (see {@link RejectionTracker.refused}). */
export type RefusalVerdict = 'refresh' | 'spent' | 'give-up'

/** A refusal as {@link RejectionTracker.refused} weighs it. */
export interface Refusal {
  /** The refused token had expired: no news about the CDN. */
  expired: boolean
  /** The CDN's status, when known: a 410 is its "expired", whatever our clock says. */
  status?: number | undefined
  /** The refresher's clock, ms. */
  now: number
}

/**
 * The refresher's memory of CDN refusals (403/410): each token may trigger one refresh, and
 * {@link MAX_REJECTED_TOKENS} valid tokens refused in a row mean the CDN refuses every token
 * (its secret or client ID differs), after which recovery stops for good. A token that served
 * for {@link REFUSAL_RUN_MS} before its refusal starts a new run: tokens refused hours apart are
 * hiccups, not a CDN that refuses everything.
 *
 * @example
 * ```ts
 * const rejections = new RejectionTracker()
 * rejections.refused('tok1', { expired: false, now: Date.now() }) // 'refresh'
 * rejections.refused('tok1', { expired: false, now: Date.now() }) // 'spent': it had its refresh
 * rejections.replaced('tok1', Date.now()) // a new token came in
 * ```
 */
export class RejectionTracker {
  /** The token whose refusal already triggered a refresh. */
  #refreshedFor = ''
  /** Valid tokens refused in a row so far. */
  inARow = 0
  /** Whether {@link MAX_REJECTED_TOKENS} were refused in a row: no more recovery. */
  gaveUp = false
  /** When the current token came in (the first one: before any run). */
  #currentSince = Number.NEGATIVE_INFINITY

  /**
   * The CDN refused `token`, the current one: `refresh` the first time for this token,
   * `spent` after that (and after giving up), `give-up` once, when this makes
   * {@link MAX_REJECTED_TOKENS} in a row. An
   * expired token refused is no news about the CDN, so it does not count towards giving up; nor
   * does a 410, the CDN's "expired" on its own clock (a token of ours that looked valid: our
   * clock is behind, the CDN does not refuse the secret).
   */
  refused(token: string, { expired, status, now }: Refusal): RefusalVerdict {
    if (this.gaveUp || this.#refreshedFor === token) return 'spent'
    this.#refreshedFor = token
    if (expired || status === 410) return 'refresh'
    if (now - this.#currentSince > REFUSAL_RUN_MS) this.inARow = 0
    if (++this.inARow >= MAX_REJECTED_TOKENS) {
      this.gaveUp = true
      return 'give-up'
    }
    return 'refresh'
  }

  /**
   * `outgoing` is replaced by a new token at `now`; if it was never refused, the run of
   * refusals is broken.
   */
  replaced(outgoing: string, now: number): void {
    if (this.#refreshedFor !== outgoing) this.inARow = 0
    this.#currentSince = now
  }
}
