import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { owns } from '../auth.ts'
import { type Addendum, addendumStatus, PRODUCTS } from '../data/addendums.ts'
import type { ApiEnv } from '../env.ts'
import { formatIso } from '../lib/dates.ts'
import {
  commaList,
  containsText,
  date,
  dateTime,
  integer,
  listItems,
  orderingKey,
  orderingValues,
  paginate,
  repeated,
  type SortKey,
  sortBy,
} from '../lib/query.ts'
import { validationHook } from '../lib/validation.ts'
import { CloudErrors, linkedPage, ok } from '../schemas.ts'

// The spec gives a range to `client_id` and `provider_id` only; every other integer filter takes
// the int64 range of the API's integers, and a value nothing has is an empty page, not a 400.
const INT32 = { min: -2147483648, max: 2147483647 }
const INT64 = integer()
const STATUSES = ['active', 'paused', 'stopped', 'upcoming'] as const
const ORDER_FIELDS: Record<string, SortKey<Addendum>> = {
  created_at: (a) => a.created_at,
  active_range_start: (a) => a.active_range.start,
  active_range_end: (a) => a.active_range.end,
  id: (a) => a.id,
  client_id: (a) => a.client_id,
  plan_name: (a) => a.plan.name,
  plan_id: (a) => a.plan.id,
  product_name: (a) => a.product.name,
  product_id: (a) => a.product.id,
}
const ORDER_VALUES = orderingValues(ORDER_FIELDS)

// `ordering` is an enum[] (4.7): comma-separated, repeated, or both, applied in the order given.
const ordering = z
  .preprocess(
    listItems,
    z
      .array(z.string())
      .superRefine((keys, ctx) => {
        const bad = keys.filter((key) => !ORDER_VALUES.includes(key))
        if (bad.length)
          ctx.addIssue({
            code: 'custom',
            message: `Unknown ordering ${bad.map((b) => `"${b}"`).join(', ')}: use ${ORDER_VALUES.join(', ')}.`,
          })
      })
      .optional(),
  )
  .optional()
  .openapi({
    type: 'array',
    items: { type: 'string', enum: ORDER_VALUES },
    example: ['-created_at', 'id'],
    description: 'Comma-separated and/or repeated, applied in order; a - prefix sorts descending',
  })

/** A `payer_id` value: an integer in the int64 range, or `null` for addendums without a payer. */
const payer = z.string().transform((text, ctx) => {
  if (text === 'null') return null
  const parsed = INT64.safeParse(text)
  if (parsed.success) return parsed.data
  for (const issue of parsed.error.issues)
    ctx.addIssue({
      code: 'custom',
      message: /^[+-]?\d+$/.test(text) ? issue.message : 'A valid integer or "null" is required.',
    })
  return z.NEVER
})

const Query = z.object({
  active_after: dateTime({ dateOnly: true }).optional(),
  active_before: dateTime({ dateOnly: true }).optional(),
  active_at: dateTime().optional(),
  not_active_at: dateTime().optional(),
  active_start_from: dateTime().optional(),
  active_start_to: dateTime().optional(),
  active_end_from: dateTime().optional(),
  active_end_to: dateTime().optional(),
  created_after: dateTime({ dateOnly: true }).optional(),
  created_before: dateTime({ dateOnly: true }).optional(),
  created_on: date().optional(),
  addendum_id: repeated(z.string().min(1).max(64)),
  id: INT64.optional(),
  client_id: repeated(integer(INT32)),
  company_name: z.string().min(1).max(255).optional(),
  currency_char_code: repeated(z.enum(['EUR', 'USD'])),
  currency_id: repeated(z.enum(['1', '2']).transform(Number)),
  payer_id: repeated(payer),
  plan_id: repeated(INT64),
  plan_name: z.string().min(1).max(255).optional(),
  product_id: repeated(
    integer().refine(
      (id) => PRODUCTS.some((p) => p.id === id),
      'Not a known product ID (see the product table).',
    ),
  ),
  product_internal_name: repeated(
    z.enum(PRODUCTS.map((p) => p.internal_name) as [string, ...string[]]),
  ),
  product_name: z.string().min(1).max(255).optional(),
  provider_id: repeated(integer(INT32)),
  reseller_id: integer().optional(),
  status: commaList(z.enum(STATUSES)),
  limit: integer({ min: 1, max: 100 }).optional(),
  offset: integer({ min: 0 }).optional(),
  ordering,
})

const AddendumSchema = z
  .object({
    id: z.number().int(),
    addendum_id: z.string(),
    client_id: z.number().int(),
    client: z.object({ id: z.number().int(), company_name: z.string() }),
    active_range: z.object({
      start: z.string().openapi({ format: 'date-time' }),
      end: z.string().openapi({ format: 'date-time' }),
    }),
    created_at: z.string(),
    currency: z.object({ id: z.number().int(), char_code: z.string(), symbol: z.string() }),
    plan: z.object({ id: z.number().int(), name: z.string() }),
    product: z.object({ id: z.number().int(), name: z.string(), internal_name: z.string() }),
    status_at_active_at: z
      .enum(STATUSES)
      .openapi({ description: 'Status at `active_at` when given, else now' }),
    payer_id: z.number().int().nullable(),
    provider_id: z.number().int(),
    reseller_id: z.number().int(),
  })
  .openapi('Addendum')

const out = (a: Addendum, at: number) => ({
  id: a.id,
  addendum_id: a.addendum_id,
  client_id: a.client_id,
  client: a.client,
  active_range: {
    start: formatIso(a.active_range.start),
    end: formatIso(a.active_range.end),
  },
  created_at: formatIso(a.created_at),
  currency: a.currency,
  plan: a.plan,
  product: a.product,
  status_at_active_at: addendumStatus(a, at),
  payer_id: a.payer_id,
  provider_id: a.provider_id,
  reseller_id: a.reseller_id,
})

const activeAt = (a: Addendum, t: number) => a.active_range.start <= t && a.active_range.end > t

/** The absolute URL of another page, or null. */
const pageUrl = (url: string, offset: number, limit: number) => {
  const next = new URL(url)
  next.searchParams.set('limit', String(limit))
  if (offset > 0) next.searchParams.set('offset', String(offset))
  else next.searchParams.delete('offset')
  return next.toString()
}

/** Billing: `GET /billing/org/v1/addendums` (4.7). A client sees its own; a reseller all its clients'. */
export const billing = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook }).openapi(
  createRoute({
    method: 'get',
    path: '/org/v1/addendums',
    operationId: 'listAddendums',
    tags: ['Billing'],
    summary: 'List addendums (offset pagination, absolute next/previous links)',
    request: { query: Query },
    responses: {
      200: ok('Addendums', linkedPage(AddendumSchema)),
      ...CloudErrors,
    },
  }),
  function listAddendums(c) {
    const q = c.req.valid('query')
    const principal = c.get('principal')
    const now = Date.now()
    const day = (ms: number) => Math.floor(ms / 86_400_000)
    const filters: ((a: Addendum) => boolean)[] = [(a) => owns(principal, a.client_id)]
    const add = <T>(value: T | undefined, test: (a: Addendum, v: T) => boolean) => {
      if (value !== undefined) filters.push((a) => test(a, value))
    }
    add(q.active_after, (a, t) => a.active_range.end > t)
    add(q.active_before, (a, t) => a.active_range.start < t)
    add(q.active_at, (a, t) => activeAt(a, t))
    add(q.not_active_at, (a, t) => !activeAt(a, t))
    add(q.active_start_from, (a, t) => a.active_range.start >= t)
    add(q.active_start_to, (a, t) => a.active_range.start <= t)
    add(q.active_end_from, (a, t) => a.active_range.end >= t)
    add(q.active_end_to, (a, t) => a.active_range.end <= t)
    add(q.created_after, (a, t) => a.created_at > t)
    add(q.created_before, (a, t) => a.created_at < t)
    add(q.created_on, (a, t) => day(a.created_at) === day(t))
    add(q.addendum_id, (a, v) => v.includes(a.addendum_id))
    add(q.id, (a, v) => a.id === v)
    add(q.client_id, (a, v) => v.includes(a.client_id))
    add(q.company_name, (a, v) => containsText(a.client.company_name, v))
    add(q.currency_char_code, (a, v) => (v as string[]).includes(a.currency.char_code))
    add(q.currency_id, (a, v) => (v as number[]).includes(a.currency.id))
    add(q.payer_id, (a, v) => v.includes(a.payer_id))
    add(q.plan_id, (a, v) => v.includes(a.plan.id))
    add(q.plan_name, (a, v) => containsText(a.plan.name, v))
    add(q.product_id, (a, v) => v.includes(a.product.id))
    add(q.product_internal_name, (a, v) => v.includes(a.product.internal_name))
    add(q.product_name, (a, v) => containsText(a.product.name, v))
    add(q.provider_id, (a, v) => v.includes(a.provider_id))
    add(q.reseller_id, (a, v) => a.reseller_id === v)
    add(q.status, (a, v) => (v as string[]).includes(addendumStatus(a, now)))
    const matched = c.get('data').addendums.filter((a) => filters.every((keep) => keep(a)))
    const sorted = sortBy(
      matched,
      [...(q.ordering ?? []), 'id'].map((key) => orderingKey(key, ORDER_FIELDS)),
    )
    const limit = q.limit ?? 100
    const offset = q.offset ?? 0
    const at = q.active_at ?? now
    return c.json(
      {
        count: sorted.length,
        next: offset + limit < sorted.length ? pageUrl(c.req.url, offset + limit, limit) : null,
        previous: offset > 0 ? pageUrl(c.req.url, Math.max(0, offset - limit), limit) : null,
        results: paginate(sorted, { limit, offset }).map((a) => out(a, at)),
      },
      200,
    )
  },
)
