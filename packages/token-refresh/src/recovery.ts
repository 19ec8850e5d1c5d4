/**
 * The recovery policy shared by every adapter: which CDN answers mean "this token was refused"
 * (403: wrong or foreign token; 410: expired), and how many times one request may be sent again
 * after such an answer. Bounded, so a CDN that refuses every token cannot cause a loop.
 */

/** Retries one request may get after token rejections (each after a refresh or a newer pair). */
export const MAX_RECOVERY_RETRIES = 2

/**
 * Whether a CDN status means the token was refused, so a refresh can help.
 *
 * @example
 * ```ts
 * if (isTokenRejection(response.status) && refresher.recover(url)) retry()
 * ```
 */
export const isTokenRejection = (status: number | undefined): boolean =>
  status === 403 || status === 410
