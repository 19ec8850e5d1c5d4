import { findTokenPair } from '@proj/signing/url'
import type { Clock } from '../types.ts'

/** What a CDN answers for a URL's pair: accepted, refused (403), expired (410). */
export type CdnVerdict = 200 | 403 | 410

/** The pairs a test's CDN accepts, and its verdict on each URL. */
export interface TokenBook {
  /** From now on `token` with exactly `expires` is accepted (until it expires). */
  issue(token: string, expires: number): void
  /** `token` answers 410 from now on (a CDN that saw it expire early). */
  revoke(token: string): void
  /** From now on every token gets 403 (a secret mismatch between backend and CDN). */
  rejectAll(): void
  /** 403 for a URL without an issued pair (or after `rejectAll`), 410 once expired, else 200. */
  verdict(url: string): CdnVerdict
}

/**
 * The one token check of the tests' fake CDNs (`tinyCdn` over HTTP, the service worker tests'
 * `fetch`), with nginx `secure_link`'s verdicts on the test's clock. Real nginx is the e2e
 * suite's job; this only knows the pairs the test's backend issued.
 *
 * @example
 * ```ts
 * const book = tokenBook(time.clock)
 * book.issue(record.token, record.expires)
 * book.verdict(record.url) // 200
 * ```
 */
export function tokenBook(clock: Clock): TokenBook {
  const issued = new Map<string, number>()
  const revoked = new Set<string>()
  let rejecting = false
  return {
    issue: (token, expires) => {
      issued.set(token, expires)
    },
    revoke: (token) => {
      revoked.add(token)
    },
    rejectAll: () => {
      rejecting = true
    },
    verdict(url) {
      const pair = findTokenPair(url)
      if (!pair || rejecting || issued.get(pair.token) !== pair.expires) return 403
      if (revoked.has(pair.token) || clock.now() >= pair.expires * 1000) return 410
      return 200
    },
  }
}
