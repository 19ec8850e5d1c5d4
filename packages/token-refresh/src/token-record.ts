import { findTokenPair } from '@proj/signing/url'
import type { TokenRecord } from './types.ts'

const FIELDS = ['token', 'token_ip', 'url', 'url_ip', 'expires'] as const

/**
 * Checks that `value` is a usable 2.11 record, so a broken backend fails loudly at the first
 * fetch instead of as a 403 storm later: non-empty `token`/`token_ip`, `url`/`url_ip` carrying a
 * `{token}/{expires}` pair, an integer `expires`; with `cdns`, a list of entries that are the
 * same with an `id`.
 *
 * @throws TypeError naming the first field that is wrong and its value.
 * @example
 * ```ts
 * const record = assertTokenRecord(await response.json())
 * ```
 */
export function assertTokenRecord(value: unknown): TokenRecord {
  return checked(value, '')
}

/** `value` checked as a record (`where` `''`) or as the entry `where` of its `cdns`. */
function checked(value: unknown, where: string): TokenRecord {
  const record = (value ?? {}) as Record<string, unknown>
  for (const field of where ? [...FIELDS, 'id'] : FIELDS) {
    const got = record[field]
    const valid =
      field === 'expires'
        ? Number.isSafeInteger(got)
        : typeof got === 'string' && got !== '' && (field[0] !== 'u' || !!findTokenPair(got))
    if (!valid)
      throw new TypeError(
        `not a token record (spec 2.11): invalid "${where}${field}": ${JSON.stringify(got)}`,
      )
  }
  // several CDNs: one bad entry would break every later rewrite of the video, not this record's
  const { cdns } = record
  // (`null` as absent: what some serializers write for a missing field)
  if (!where && cdns !== undefined && cdns !== null) {
    if (!Array.isArray(cdns)) throw new TypeError('not a token record (spec 2.11): invalid "cdns"')
    cdns.forEach((entry, i) => {
      checked(entry, `cdns[${i}].`)
    })
  }
  return record as unknown as TokenRecord
}
