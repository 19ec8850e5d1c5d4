/**
 * The words the player core and the backend's CDN health share for what a CDN's answer means
 * (`@proj/signing/cdn-failure`, small enough for player bundles): whether a token was refused,
 * and why a CDN failed a request.
 */

/**
 * Whether a CDN status means "this token was refused": 403 (a wrong or foreign token) or 410 (an
 * expired one), the answers of nginx `secure_link` and of this project's CDN check.
 *
 * @example
 * ```ts
 * if (isTokenRefusal(response.status) && refresher.recover(url)) retry()
 * ```
 */
export function isTokenRefusal(status: number | undefined): boolean {
  return status === 403 || status === 410
}

/**
 * Why a request failed on its CDN (not because of the token or the content):
 * - `refused`: a 403/410 for a token that was fresh (the CDN's secret or clock is not ours);
 * - `server-error`: a 5xx;
 * - `network`: no answer at all;
 * - `timeout`: no first byte in time (the caller's own verdict: it owns the clock).
 */
export type CdnFailure = 'refused' | 'server-error' | 'network' | 'timeout'

/** Every {@link CdnFailure}, e.g. to validate one read back from a store or a log. */
export const CDN_FAILURES: readonly CdnFailure[] = ['refused', 'server-error', 'network', 'timeout']

/**
 * What an answer of `status` says about its CDN: a {@link CdnFailure}, or `undefined` when the CDN
 * did its job (a success, a 404 of the content, a refusal of a token that had expired: a refresh
 * helps there, not another CDN). Status 0 is a request that got no answer.
 *
 * @example
 * ```ts
 * cdnFailureOf(503, { tokenFresh: true })  // 'server-error'
 * cdnFailureOf(403, { tokenFresh: true })  // 'refused'
 * cdnFailureOf(410, { tokenFresh: false }) // undefined: the token expired
 * cdnFailureOf(0, { tokenFresh: true })    // 'network'
 * ```
 */
export function cdnFailureOf(
  status: number,
  { tokenFresh }: { tokenFresh: boolean },
): CdnFailure | undefined {
  if (status === 0) return 'network'
  if (status >= 500 && status <= 599) return 'server-error'
  if (isTokenRefusal(status) && tokenFresh) return 'refused'
  return undefined
}
