import { findTokenPair } from '@proj/signing/url'
import type { TokenRecord } from './types.ts'

const FIELDS = ['token', 'token_ip', 'url', 'url_ip', 'expires'] as const

/**
 * Checks that `value` is a usable 2.11 record, so a broken backend fails loudly at the first
 * fetch instead of as a 403 storm later: non-empty `token`/`token_ip`, `url`/`url_ip` carrying a
 * `{token}/{expires}` pair, an integer `expires`.
 *
 * @throws TypeError naming the first field that is wrong and its value.
 * @example
 * ```ts
 * const record = assertTokenRecord(await response.json())
 * ```
 */
export function assertTokenRecord(value: unknown): TokenRecord {
  const record = (value ?? {}) as Record<string, unknown>
  for (const field of FIELDS) {
    const got = record[field]
    const valid =
      field === 'expires'
        ? Number.isSafeInteger(got)
        : typeof got === 'string' && got !== '' && (field[0] !== 'u' || !!findTokenPair(got))
    if (!valid)
      throw new TypeError(
        `not a token record (spec 2.11): invalid "${field}": ${JSON.stringify(got)}`,
      )
  }
  return record as unknown as TokenRecord
}
