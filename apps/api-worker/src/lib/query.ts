import { z } from '@hono/zod-openapi'
import { parseDateTime } from './dates.ts'

// Query-string building blocks shared by every endpoint. Messages follow the vendor's style.

const toArray = (value: unknown) =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value]

// An empty item (`?status=`, `?ids=,`) is no value at all: dropped, and a filter left with no item
// is as if absent. Kept, it would be a filter matching nothing (or a 400 for a value nobody sent).
const present = <T>(items: T[] | undefined): T[] | undefined => {
  const kept = items?.filter((item) => String(item).trim() !== '')
  return kept?.length ? kept : undefined
}

/**
 * The items of a list parameter, repeated and/or comma-separated (`?ids=1,2&ids=3`), trimmed, in
 * order; empty items dropped, and `undefined` when none is left.
 *
 * @example
 * ```ts
 * listItems(['a,b', ' c ', ',']) // ['a', 'b', 'c']
 * listItems('') // undefined
 * ```
 */
export function listItems(value: unknown): string[] | undefined {
  return present(
    toArray(value)
      ?.flatMap((entry) => String(entry).split(','))
      .map((entry) => entry.trim()),
  )
}

/**
 * A repeated parameter (`?status=a&status=b`): an array of validated items, empty ones dropped
 * (`undefined` when none is left).
 * @example `status: repeated(z.enum(['done', 'rejected']))`
 */
export function repeated<T extends z.ZodType>(item: T) {
  return z
    .preprocess((value) => present(toArray(value)), z.array(item).optional())
    .optional()
    .openapi({ type: 'array', items: { type: 'string' } })
}

/**
 * A repeated parameter that also accepts comma-separated lists (`?ids=1,2&ids=3`); see
 * {@link listItems}.
 * @example `request_ids: commaList(integerText())`
 */
export function commaList<T extends z.ZodType>(item: T) {
  return z
    .preprocess(listItems, z.array(item).optional())
    .optional()
    .openapi({ type: 'array', items: { type: 'string' } })
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/**
 * An integer given as text, within `min`/`max` and always within the signed 64-bit range the
 * spec types these parameters with (not only JavaScript's safe integers, whose bound must never
 * show in a message). Beyond 2^53 the number is not exact, which only matters for equality with
 * stored IDs (all far below it) and for offsets (far past every list).
 * @example `limit: integer({ min: 1, max: 1000 }).optional()`
 */
export function integer({ min, max }: { min?: number; max?: number } = {}) {
  const low = min === undefined ? INT64_MIN : BigInt(min)
  const high = max === undefined ? INT64_MAX : BigInt(max)
  return z
    .string()
    .regex(/^[+-]?\d+$/, 'A valid integer is required.')
    .superRefine((text, context) => {
      if (!/^[+-]?\d+$/.test(text)) return // the regex above said so already
      const value = BigInt(text)
      if (value < low)
        context.addIssue({
          code: 'custom',
          message: `Ensure this value is greater than or equal to ${low}.`,
        })
      else if (value > high)
        context.addIssue({
          code: 'custom',
          message: `Ensure this value is less than or equal to ${high}.`,
        })
    })
    .transform(Number)
    .openapi({
      type: 'integer',
      format: 'int64',
      ...(min !== undefined && { minimum: min }),
      ...(max !== undefined && { maximum: max }),
    })
}

/**
 * An int64 given as text (spec: "integer (int64)"), at least `min`.
 * @example `client_id: int64({ min: 1 }).optional()`
 */
export function int64({ min }: { min: number }) {
  return integer({ min })
}

// A Map, not an object literal: `{…}[text]` also finds what every object inherits, so
// `?external=constructor` or `?shared=__proto__` read as a value instead of a 400.
const BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
])

/**
 * `true` / `false` (also `1`/`0`, `True`/`False`, as the vendor's API accepts); anything else is a
 * 400 "Must be a valid boolean.".
 *
 * @example
 * ```ts
 * const Query = z.object({ external: boolean().optional() })
 * Query.parse({ external: 'True' }) // { external: true }
 * ```
 */
export function boolean() {
  return z
    .string()
    .transform((text, ctx) => {
      const value = BOOLEANS.get(text.toLowerCase())
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', message: 'Must be a valid boolean.' })
        return z.NEVER
      }
      return value
    })
    .openapi({ type: 'boolean' })
}

/** An ISO 8601 date-time filter → epoch ms (see `parseDateTime`). */
export function dateTime({ dateOnly = false }: { dateOnly?: boolean } = {}) {
  return z
    .string()
    .transform((text, ctx) => {
      const ms = parseDateTime(text, { dateOnly })
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]${dateOnly ? ', YYYY-MM-DD' : ''}.`,
        })
        return z.NEVER
      }
      return ms
    })
    .openapi({ type: 'string', format: dateOnly ? 'date-time or date' : 'date-time' })
}

/** A date `YYYY-MM-DD` → epoch ms of that UTC midnight. */
export function date() {
  return z
    .string()
    .regex(
      /^\d{4}-\d{2}-\d{2}$/,
      'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
    )
    .transform((text, ctx) => {
      const ms = parseDateTime(text, { dateOnly: true })
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
        })
        return z.NEVER
      }
      return ms
    })
    .openapi({ type: 'string', format: 'date' })
}

/**
 * A UUID in canonical text form, in either case, as lower case: the form every stored ID has, so
 * `CEC12131-…` finds what `cec12131-…` finds (UUIDs are case-insensitive on input, RFC 9562).
 */
export function uuid() {
  return z
    .string()
    .regex(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
      'Must be a valid UUID.',
    )
    .transform((text) => text.toLowerCase())
    .openapi({ type: 'string', format: 'uuid' })
}

/**
 * One page of `items`.
 * @example paginate([1, 2, 3, 4], { limit: 2, offset: 1 }) // [2, 3]
 */
export function paginate<T>(
  items: readonly T[],
  { limit, offset }: { limit: number; offset: number },
): T[] {
  return items.slice(offset, offset + limit)
}

/** A comparable sort key of an item. */
export type SortKey<T> = (item: T) => string | number | null

/**
 * Every value an ordering parameter accepts for `fields`: each field (ascending) and `-field`
 * (descending), the vendor's convention; what its enum or check is built from.
 *
 * @example
 * ```ts
 * orderingValues({ id: (a) => a.id, name: (a) => a.name }) // ['id', '-id', 'name', '-name']
 * ```
 */
export function orderingValues(fields: Readonly<Record<string, unknown>>): [string, ...string[]] {
  return Object.keys(fields).flatMap((field) => [field, `-${field}`]) as [string, ...string[]]
}

/**
 * One `field` / `-field` value as a {@link sortBy} key. The value was checked against
 * {@link orderingValues} by the query schema, so an unknown field is this emulator's bug.
 *
 * @example
 * ```ts
 * sortBy(apps, [orderingKey('-name', ORDER_FIELDS), [(a) => a.id, 'asc']])
 * ```
 */
export function orderingKey<T>(
  value: string,
  fields: Readonly<Record<string, SortKey<T>>>,
): readonly [SortKey<T>, 'asc' | 'desc'] {
  const descending = value.startsWith('-')
  const field = descending ? value.slice(1) : value
  // own fields only: an inherited `constructor` is no sort key
  const key = Object.hasOwn(fields, field) ? fields[field] : undefined
  if (!key) throw new Error(`unknown ordering field "${value}" (not in the query schema)`)
  return [key, descending ? 'desc' : 'asc']
}

/**
 * Sorts by several keys, each ascending or descending; `null` sorts last; stable.
 * @example sortBy(apps, [[(a) => a.name, 'asc'], [(a) => a.id, 'desc']])
 */
export function sortBy<T>(
  items: readonly T[],
  keys: readonly (readonly [SortKey<T>, 'asc' | 'desc'])[],
): T[] {
  return [...items].sort((a, b) => {
    for (const [key, direction] of keys) {
      const x = key(a)
      const y = key(b)
      if (x === y) continue
      if (x === null) return 1
      if (y === null) return -1
      const order = x < y ? -1 : 1
      return direction === 'asc' ? order : -order
    }
    return 0
  })
}

/**
 * Case-insensitive "contains".
 * @example containsText('Northwind Media', 'wind') // true
 */
export function containsText(haystack: string, needle: string): boolean {
  return haystack.toLowerCase().includes(needle.toLowerCase())
}
