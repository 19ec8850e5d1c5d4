// Names the core published before one word and one object did their jobs: they keep working
// (each is the new one under its old name) and go in the next major version. The CDN lane's
// (`createCdnFailover`) is in `cdn-lane.ts`, whose module pages load on demand.
import { cdnFailureOf, isTokenRefusal } from '@proj/signing/cdn-failure'
import type { CdnFailure } from './types.ts'

/**
 * Whether a CDN status means the token was refused (403 or 410).
 *
 * @deprecated `isTokenRefusal` (`@proj/signing/cdn-failure`, also exported here): the one
 * definition the player core and the token backend share.
 * @example
 * ```ts
 * isTokenRejection(410) // true
 * ```
 */
export const isTokenRejection: (status: number | undefined) => boolean = isTokenRefusal

/**
 * Why a request failed on its CDN, including the caller's own `'timeout'`.
 *
 * @deprecated `CdnFailure`: the same four words.
 */
export type CdnFailureReason = CdnFailure

/**
 * Whether an answer of `status` is the CDN's failure, given whether the token was `fresh`.
 *
 * @deprecated `cdnFailureOf(status, { tokenFresh })` of `@proj/signing/cdn-failure`, or a
 * `CdnAttempt` (`refresher.attempt(url)`), which classifies and moves in one step.
 * @example
 * ```ts
 * classifyCdnFailure(503, true) // 'server-error'
 * ```
 */
export function classifyCdnFailure(status: number, fresh: boolean): CdnFailure | undefined {
  return cdnFailureOf(status, { tokenFresh: fresh })
}
