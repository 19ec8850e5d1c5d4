/**
 * The recovery policy shared by every adapter: how many times one request may be sent again
 * after its token was refused (`isTokenRefusal` of `@proj/signing/cdn-failure` says which
 * answers are refusals), and when the refresher gives up. Bounded, so a CDN that refuses every
 * token cannot cause a loop.
 */

import type { StreamLimitError } from './stream-limit.ts'

/** Retries one request may get after token rejections (each after a refresh or a newer pair). */
export const MAX_RECOVERY_RETRIES = 2

/** Tokens rejected in a row, each fresh from a refresh, after which the refresher gives up. */
export const MAX_REJECTED_TOKENS = 3

/**
 * A token refused later than this after it came in does not extend a run of refusals: a player
 * sends requests every few seconds, so that token served meanwhile and the CDN knows the secret
 * (a refused token then is a CDN hiccup). A CDN that refuses every token refuses each fresh one
 * within seconds.
 */
export const REFUSAL_RUN_MS = 30_000

/**
 * A 410 (the CDN's "expired") of a token that looked valid counts towards the give-up only when
 * the token came in less than this before: expired at the CDN on arrival, the CDN's clock is
 * ahead of the token backend's by about a token's life or more, and every new token will be
 * too (a refresh per refusal, none of them of use). Later, it is a clock slightly off, which a
 * refresh mends (the token then lives a little less at the CDN). Long enough for a player's
 * first retries (hls.js waits 1 s, then 2 s); tokens that live less than this at the CDN
 * could not play anyway.
 */
export const DEAD_ON_ARRIVAL_MS = 3000

/**
 * The CDN rejected every new token: its secret or client ID differs from the token backend's (or
 * the viewer's address changes under IP-bound tokens, or, when it answers 410, the backend's
 * clock is behind the CDN's by about a token's life or more). Reported once, as the
 * refresher's `error` event (and `onError`); no further recovery is tried, so the player ends
 * in its own error.
 */
export class TokenRejectedError extends Error {
  override name = 'TokenRejectedError'
  /** How many tokens in a row the CDN refused. */
  readonly rejected: number
  constructor(rejected: number) {
    super(
      `the CDN rejected ${rejected} tokens in a row, each fresh from the token backend: check that SECRET_KEY and CLIENT_ID match the CDN's (or, with ipBound, that the viewer's address is stable, or with 410s the token backend's clock)`,
    )
    this.rejected = rejected
  }
}

/**
 * Whether `error`, reported by a refresher, means it gave up for good and the player must end in
 * its own fatal error: the CDN refused every token ({@link TokenRejectedError}) or the token
 * backend refused the stream ({@link StreamLimitError}). By their names, as {@link isStreamRefusal}
 * does: a script-tag build's give-up is a file of its own, with its own copy of the classes.
 *
 * @example
 * ```ts
 * refresher.addEventListener('error', ({ detail }) => {
 *   if (endsPlayback(detail)) player.stop()
 * })
 * ```
 */
export function endsPlayback(error: unknown): error is TokenRejectedError | StreamLimitError {
  return (
    error instanceof Error &&
    (error.name === 'TokenRejectedError' || error.name === 'StreamLimitError')
  )
}

/**
 * Whether `error` is the token backend's refusal of the stream, a {@link StreamLimitError}: by
 * its name, so that recognising it never loads its module (loaded with the first refusal) and
 * holds across copies of it (a script-tag build and a page's bundle).
 *
 * @example
 * ```ts
 * if (isStreamRefusal(error) && error.code === 'stream_limit') show(`${error.limit} streams at most`)
 * ```
 */
export function isStreamRefusal(error: unknown): error is StreamLimitError {
  return error instanceof Error && error.name === 'StreamLimitError'
}
