import { findTokenPair } from '@proj/signing/url'
import type { TokenRecord } from './types.ts'

const STRING_FIELDS = ['token', 'token_ip', 'url', 'url_ip'] as const

/**
 * Checks that `value` is a usable 2.11 record, so a broken backend fails loudly at the first
 * fetch instead of as a 403 storm later.
 *
 * @throws TypeError naming the first field that is wrong.
 * @example
 * ```ts
 * const record = assertTokenRecord(await response.json())
 * ```
 */
export const assertTokenRecord = (value: unknown): TokenRecord => {
  const record = value as Record<string, unknown> | null
  const fail = (what: string) => {
    throw new TypeError(`getToken() must resolve to a token record (spec 2.11): ${what}`)
  }
  if (typeof record !== 'object' || record === null) return fail(`got ${typeof value}`)
  for (const field of STRING_FIELDS)
    if (typeof record[field] !== 'string' || record[field] === '')
      fail(`"${field}" must be a non-empty string`)
  if (!Number.isSafeInteger(record.expires)) fail('"expires" must be an integer (Unix seconds)')
  for (const field of ['url', 'url_ip'] as const)
    if (!findTokenPair(record[field] as string))
      fail(`"${field}" carries no {token}/{expires} pair`)
  return record as unknown as TokenRecord
}
