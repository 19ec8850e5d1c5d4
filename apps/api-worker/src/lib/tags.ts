import { z } from '@hono/zod-openapi'

// The tag rules of spec 2.1, for write bodies and for the filters that take tags. Lengths are in
// characters (code points), as the spec counts them: an emoji is one character, not two UTF-16
// units.

/** A tag key as a filter takes it: 1–255 characters, no whitespace or `=`. */
export const TAG_KEY = /^[^\s=]{1,255}$/u

/** Most characters of a tag key or value (spec 2.1, 8). */
const MAX_TAG_LENGTH = 255

/** Length in characters (code points), not UTF-16 units. */
const characters = (text: string) => {
  let count = 0
  for (const _ of text) count++
  return count
}

/** A JSON object (not null, not an array): what a tag map is written as. */
const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Tag map of write requests (spec 2.1): whitespace trimmed, then the key and value rules; two
 * keys equal once trimmed (`"a"` and `" a "`) are one key given twice, a 400 naming it. The
 * result has no prototype, so `__proto__` is an ordinary key (zod's `record`, and any `{}`
 * assignment, would drop it); it serializes as any object.
 *
 * @example
 * ```ts
 * TagMap.parse({ ' env ': 'prod ' })               // { env: 'prod' }
 * TagMap.parse(JSON.parse('{"__proto__":"x"}'))    // the one tag "__proto__": "x"
 * TagMap.safeParse({ a: '1', ' a ': '2' }).success // false: tags. a : Tag key "a" is given more than once …
 * ```
 */
export const TagMap = z
  // Not z.record: it skips a `__proto__` key, so the tag vanished without a word.
  .custom<Readonly<Record<string, unknown>>>(
    isObject,
    'Must be an object mapping tag key to tag value.',
  )
  .transform((tags, ctx) => {
    const out: Record<string, string> = Object.create(null)
    const given = new Set<string>()
    for (const [rawKey, rawValue] of Object.entries(tags)) {
      const issue = (message: string) => ctx.addIssue({ code: 'custom', path: [rawKey], message })
      if (typeof rawValue !== 'string') {
        // zod's own kind of issue, as z.record's was: "Not a valid string." in a body; in a
        // query, the tagMapJson message that says what the parameter holds
        ctx.addIssue({ code: 'invalid_type', expected: 'string', input: rawValue, path: [rawKey] })
        continue
      }
      const key = rawKey.trim()
      const value = rawValue.trim()
      const keyLength = characters(key)
      if (keyLength < 1 || keyLength > MAX_TAG_LENGTH)
        issue(`Tag key must be 1 to ${MAX_TAG_LENGTH} characters.`)
      else if (/[\s=]/u.test(key)) issue('Tag key must not contain spaces, tabs, newlines or "=".')
      else if (given.has(key))
        issue(`Tag key "${key}" is given more than once (keys are compared after trimming).`)
      given.add(key)
      const valueLength = characters(value)
      if (valueLength < 1 || valueLength > MAX_TAG_LENGTH)
        issue(`Tag value must be 1 to ${MAX_TAG_LENGTH} characters.`)
      else if (/[\t\n\r]/.test(value)) issue('Tag value must not contain tabs or newlines.')
      out[key] = value
    }
    return out
  })
  .openapi({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { env: 'prod', team: 'video' },
  })

/**
 * A JSON-encoded tag map in a query string (`tag_key_value={"env":"prod"}`), held to the same
 * key and value rules as {@link TagMap}.
 * @example `tag_key_value: tagMapJson().optional()`
 */
export function tagMapJson() {
  return z
    .string()
    .transform((text, ctx) => {
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {}
      const parsed = isObject(value) ? TagMap.safeParse(value) : undefined
      if (parsed?.success) return parsed.data
      const issues = (parsed?.error.issues ?? []).filter((issue) => issue.code === 'custom')
      for (const issue of issues) ctx.addIssue({ code: 'custom', message: issue.message })
      if (!issues.length)
        ctx.addIssue({
          code: 'custom',
          message: 'Must be a JSON object mapping tag key to tag value, e.g. {"env":"prod"}.',
        })
      return z.NEVER
    })
    .openapi({ type: 'string', example: '{"env":"prod"}' })
}
