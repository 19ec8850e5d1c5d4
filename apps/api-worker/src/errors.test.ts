import { z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { ApiError } from './errors.ts'

describe('ApiError.fromZod', () => {
  it('groups the messages of each field path', () => {
    const parsed = z.object({ a: z.string(), b: z.number() }).safeParse({})
    expect(parsed.success).toBe(false)
    expect(parsed.error && ApiError.fromZod(parsed.error).fields).toEqual({
      a: ['This field is required.'],
      b: ['This field is required.'],
    })
  })

  it('takes field names every object inherits as ordinary names (constructor was a TypeError)', () => {
    const parsed = z
      .object({ constructor: z.string(), toString: z.string().min(2) })
      .safeParse({ constructor: 1, toString: 'x' })
    expect(parsed.success).toBe(false)
    const error = parsed.error && ApiError.fromZod(parsed.error)
    expect(error?.status).toBe(400)
    expect(Object.entries(error?.fields ?? {})).toEqual([
      ['constructor', ['Not a valid string.']],
      ['toString', ['Ensure this field has at least 2 characters.']],
    ])
  })
})
