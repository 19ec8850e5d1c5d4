import type { Context } from 'hono'
import type { ZodError, z } from 'zod'
import { ApiError } from '../errors.ts'

/** What hono's validator hands a hook: the parse result and which part of the request it read. */
type Result = ({ success: true } | { success: false; error: ZodError }) & { target?: string }

/**
 * The message for a single-valued query parameter given more than once. Hono's validator hands
 * such a parameter over as an array, so the item schema's own complaint ("Not a valid string.",
 * or an enum's "Select a valid choice" listing the very value sent) named the wrong fault.
 */
export const repeatedMessage = (times: number) =>
  `Given ${times} times: this parameter takes a single value.`

/**
 * Whether `issue` is a single-valued parameter's refusal of the array its repetitions made: an
 * issue on the parameter itself (a list parameter's item issues sit one level deeper, at
 * `param.<index>`) about the value's type or choice, never a list's own check such as an unknown
 * `ordering` item.
 */
const refusesRepetition = (issue: z.core.$ZodIssue, counts: ReadonlyMap<string, number>) =>
  issue.path.length === 1 &&
  (counts.get(String(issue.path[0])) ?? 0) > 1 &&
  (issue.code === 'invalid_type' || issue.code === 'invalid_value')

/**
 * The one validation hook of every sub-app: a failed parse becomes an {@link ApiError} 400, which
 * `onError` renders in the request's error family. A single-valued query parameter given more
 * than once is named as such (`limit: Given 2 times: …`).
 *
 * @example
 * ```ts
 * const cloud = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
 * ```
 */
export function validationHook(result: Result, c: Context): void {
  if (result.success) return
  const counts = new Map<string, number>()
  if (result.target === 'query')
    for (const [name, values] of Object.entries(c.req.queries())) counts.set(name, values.length)
  throw ApiError.fromZod(result.error, (issue) =>
    refusesRepetition(issue, counts)
      ? repeatedMessage(counts.get(String(issue.path[0])) ?? 2)
      : undefined,
  )
}
