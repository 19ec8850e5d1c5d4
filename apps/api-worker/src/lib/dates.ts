/**
 * The date-time formats of spec 2.1, each used by the endpoints that document it, and one parser
 * for filters: lenient about the form, strict about each field's range. All times are UTC.
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

/** Epoch ms of a UTC calendar date and time; years 0–99 stay themselves (`Date.UTC` maps them to 1900–1999). */
const utcMs = (year: number, month: number, day: number, h: number, mi: number, s: number) => {
  const at = new Date(Date.UTC(2000, month - 1, day, h, mi, s))
  at.setUTCFullYear(year, month - 1, day)
  return at.getTime()
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const leapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)

/** Days in a month (1–12) of the proleptic Gregorian calendar, the calendar of ISO 8601. */
const daysIn = (year: number, month: number) =>
  month === 2 && leapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0)

/**
 * Parses an ISO 8601 / RFC 3339 date-time filter: `T` or a space between date and time, `Z`, a
 * `±hh:mm` or `±hhmm` offset or no zone (UTC), optional seconds and fraction, and a bare date where
 * the endpoint allows it. Strict: every field must be in its range (month 01–12, a day the month
 * has, hour 00–23, minute and second 00–59, offset up to ±23:59), so `2026-02-30`, `10:99:99` or
 * `+99:99` are refused instead of rolling over into another instant.
 *
 * @returns epoch milliseconds, or `undefined` when the text is not such a date-time.
 * @example
 * ```ts
 * parseDateTime('2026-11-20 10:15:30+01:00') // Date.UTC(2026, 10, 20, 9, 15, 30)
 * parseDateTime('2026-11-20', { dateOnly: true }) // Date.UTC(2026, 10, 20)
 * parseDateTime('2026-11-23T10:61:00Z') // undefined
 * ```
 */
export function parseDateTime(
  text: string,
  { dateOnly = false }: ParseOptions = {},
): number | undefined {
  const match = DATE_TIME.exec(text.trim())
  if (!match) return undefined
  const [, y, mo, d, h, mi = '0', s = '0', frac = '0', zone] = match
  if (h === undefined && !dateOnly) return undefined
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h ?? 0)
  const minute = Number(mi)
  const second = Number(s)
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined
  if (hour > 23 || minute > 59 || second > 59) return undefined
  let offsetMinutes = 0
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '')
    const [offsetHours, offsetMins] = [Number(digits.slice(0, 2)), Number(digits.slice(2))]
    if (offsetHours > 23 || offsetMins > 59) return undefined
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMins)
  }
  // the fraction as whole milliseconds: digits past the third are below the API's precision
  const ms = Number(frac.padEnd(3, '0').slice(0, 3))
  return utcMs(year, month, day, hour, minute, second) + ms - offsetMinutes * 60_000
}
