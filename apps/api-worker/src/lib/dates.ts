/**
 * The date-time formats of spec 2.1, each used by the endpoints that document it, and one lenient
 * parser for filters. All times are UTC.
 */

const seconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)

/**
 * ISO 8601 with a numeric UTC offset without colon (network endpoint).
 * @example formatOffset(0) // '1970-01-01T00:00:00+0000'
 */
export function formatOffset(ms: number): string {
  return `${seconds(ms)}+0000`
}

/**
 * ISO 8601 with a trailing `Z` (quota limit requests v1).
 * @example formatZulu(0) // '1970-01-01T00:00:00Z'
 */
export function formatZulu(ms: number): string {
  return `${seconds(ms)}Z`
}

/**
 * ISO 8601 with no zone designator (quota limit requests v2).
 * @example formatNaive(0) // '1970-01-01T00:00:00'
 */
export function formatNaive(ms: number): string {
  return seconds(ms)
}

/**
 * ISO 8601 with milliseconds and `Z`, the default elsewhere.
 * @example formatIso(0) // '1970-01-01T00:00:00.000Z'
 */
export function formatIso(ms: number): string {
  return new Date(ms).toISOString()
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i

/** What {@link parseDateTime} accepts. */
export interface ParseOptions {
  /** Accept a date without time (start of that UTC day). */
  dateOnly?: boolean
}

/**
 * Parses an ISO 8601 / RFC 3339 date-time filter: `T` or a space between date and time, `Z`, a
 * `±hh:mm` or `±hhmm` offset or no zone (UTC), optional seconds and fraction, and a bare date where
 * the endpoint allows it. Impossible dates (`2026-02-30`) are rejected.
 *
 * @returns epoch milliseconds, or `undefined` when the text is not such a date-time.
 * @example
 * ```ts
 * parseDateTime('2026-11-20 10:15:30+01:00') // Date.UTC(2026, 10, 20, 9, 15, 30)
 * parseDateTime('2026-11-20', { dateOnly: true }) // Date.UTC(2026, 10, 20)
 * ```
 */
export function parseDateTime(
  text: string,
  { dateOnly = false }: ParseOptions = {},
): number | undefined {
  const match = DATE_TIME.exec(text.trim())
  if (!match) return undefined
  const [, y, mo, d, h, mi, s = '0', frac = '0', zone] = match
  if (h === undefined && !dateOnly) return undefined
  const ms = Number(`0.${frac}`) * 1000
  const utc = Date.UTC(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h ?? 0),
    Number(mi ?? 0),
    Number(s),
    ms,
  )
  const check = new Date(utc)
  if (
    check.getUTCDate() !== Number(d) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    Number(h ?? 0) > 23
  )
    return undefined
  if (!zone || zone.toUpperCase() === 'Z') return utc
  const sign = zone.startsWith('-') ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  const offset = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000
  return utc - sign * offset
}
