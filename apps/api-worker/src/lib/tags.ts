import { z } from '@hono/zod-openapi'

// The tag rules of spec 2.1, for write bodies and for the filters that take tags.

/** A tag key as a filter takes it: 1–255 characters, no whitespace or `=`. */
export const TAG_KEY = /^[^\s=]{1,255}$/

/** Tag map of write requests (spec 2.1): whitespace trimmed, then the key and value rules. */
export const TagMap = z
  .record(z.string(), z.string())
  .transform((tags, ctx) => {
    const out: Record<string, string> = {}
    for (const [rawKey, rawValue] of Object.entries(tags)) {
      const key = rawKey.trim()
      const value = rawValue.trim()
      if (key.length < 1 || key.length > 255)
        ctx.addIssue({
          code: 'custom',
          path: [rawKey],
          message: 'Tag key must be 1 to 255 characters.',
        })
      else if (/[\s=]/.test(key))
        ctx.addIssue({
          code: 'custom',
          path: [rawKey],
          message: 'Tag key must not contain spaces, tabs, newlines or "=".',
        })
      if (value.length < 1 || value.length > 255)
        ctx.addIssue({
          code: 'custom',
          path: [rawKey],
          message: 'Tag value must be 1 to 255 characters.',
        })
      else if (/[\t\n\r]/.test(value))
        ctx.addIssue({
          code: 'custom',
          path: [rawKey],
          message: 'Tag value must not contain tabs or newlines.',
        })
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
      const parsed = TagMap.safeParse(value)
      if (parsed.success && value !== null && !Array.isArray(value)) return parsed.data
      for (const issue of parsed.error?.issues ?? [])
        if (issue.code === 'custom') ctx.addIssue({ code: 'custom', message: issue.message })
      if (parsed.success || !parsed.error.issues.some((issue) => issue.code === 'custom'))
        ctx.addIssue({
          code: 'custom',
          message: 'Must be a JSON object mapping tag key to tag value, e.g. {"env":"prod"}.',
        })
      return z.NEVER
    })
    .openapi({ type: 'string', example: '{"env":"prod"}' })
}
