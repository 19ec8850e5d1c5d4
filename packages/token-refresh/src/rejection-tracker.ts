import { MAX_REJECTED_TOKENS } from './recovery.ts'

/** What a refusal of the current token calls for (see {@link RejectionTracker.refused}). */
export type RefusalVerdict = 'refresh' | 'spent' | 'give-up'

/**
 * The refresher's memory of CDN refusals (403/410): each token may trigger one refresh, and
 * {@link MAX_REJECTED_TOKENS} valid tokens refused in a row mean the CDN refuses every token
 * (its secret or client ID differs), after which recovery stops for good.
 *
 * @example
 * ```ts
 * const rejections = new RejectionTracker()
 * rejections.refused('tok1', false) // 'refresh'
 * rejections.refused('tok1', false) // 'spent': this token already had its refresh
 * rejections.replaced('tok1') // a new token came in
 * ```
 */
export class RejectionTracker {
  /** The token whose refusal already triggered a refresh. */
  #refreshedFor = ''
  /** Valid tokens refused in a row so far. */
  inARow = 0
  /** Whether {@link MAX_REJECTED_TOKENS} were refused in a row: no more recovery. */
  gaveUp = false

  /**
   * The CDN refused `token`, the current one: `refresh` the first time for this token,
   * `spent` after that (and after giving up), `give-up` once, when this makes
   * {@link MAX_REJECTED_TOKENS} in a row. An
   * expired token refused is no news about the CDN, so it does not count towards giving up.
   */
  refused(token: string, expired: boolean): RefusalVerdict {
    if (this.gaveUp || this.#refreshedFor === token) return 'spent'
    this.#refreshedFor = token
    if (!expired && ++this.inARow >= MAX_REJECTED_TOKENS) {
      this.gaveUp = true
      return 'give-up'
    }
    return 'refresh'
  }

  /** `outgoing` is replaced by a new token; if it was never refused, the run of refusals is broken. */
  replaced(outgoing: string): void {
    if (this.#refreshedFor !== outgoing) this.inARow = 0
  }
}
