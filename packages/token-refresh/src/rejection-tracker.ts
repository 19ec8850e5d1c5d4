import { DEAD_ON_ARRIVAL_MS, MAX_REJECTED_TOKENS, REFUSAL_RUN_MS } from './recovery.ts'

/** What a refusal of the current token calls for (see {@link RejectionTracker.refused}). */
export type RefusalVerdict = 'refresh' | 'spent' | 'give-up'

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
 * rejections.refused('tok1', false, 403, Date.now()) // 'refresh'
 * rejections.refused('tok1', false, 403, Date.now()) // 'spent': it had its refresh
 * rejections.replaced('tok1', Date.now()) // a new token came in
 * ```
 */
export class RejectionTracker {
  /**
   * The token whose refusal already triggered a refresh (spent: until the next token, requests
   * wait for it instead of leaving with this one); not the one refused at the give-up.
   */
  spent = ''
  /** Valid tokens refused in a row so far. */
  inARow = 0
  /** Whether {@link MAX_REJECTED_TOKENS} were refused in a row: no more recovery. */
  gaveUp = false
  /** When the current token came in (the first one: before any run). */
  #currentSince = Number.NEGATIVE_INFINITY

  /**
   * The CDN refused `token`, the current one, with `status` (when known) at `now` (the
   * refresher's clock, ms): `refresh` the first time for this token, `spent` after that (and
   * after giving up), `give-up` once, when this makes {@link MAX_REJECTED_TOKENS} in a row. An
   * `expired` token refused is no news about the CDN, so it does not count towards giving up;
   * nor does a 410, the CDN's "expired" on its own clock (a token of ours that looked valid: our
   * clock is behind, the CDN does not refuse the secret), unless the token came in less than
   * {@link DEAD_ON_ARRIVAL_MS} before (expired there on arrival: so will every new one be).
   */
  refused(
    token: string,
    expired: boolean,
    status: number | undefined,
    now: number,
  ): RefusalVerdict {
    if (this.gaveUp || this.spent === token) return 'spent'
    if (!expired && (status !== 410 || now - this.#currentSince < DEAD_ON_ARRIVAL_MS)) {
      if (now - this.#currentSince > REFUSAL_RUN_MS) this.inARow = 0
      if (++this.inARow >= MAX_REJECTED_TOKENS) {
        this.gaveUp = true
        return 'give-up'
      }
    }
    this.spent = token
    return 'refresh'
  }

  /**
   * `outgoing` is replaced by a new token at `now`; if it was never refused, the run of
   * refusals is broken.
   */
  replaced(outgoing: string, now: number): void {
    if (this.spent !== outgoing) this.inARow = 0
    this.#currentSince = now
  }
}
