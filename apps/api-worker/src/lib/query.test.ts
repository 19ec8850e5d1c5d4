import { z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { boolean, orderingKey } from './query.ts'

describe('boolean', () => {
  const Query = z.object({ flag: boolean() })

  it.each([
    ['true', true],
    ['True', true],
    ['1', true],
    ['false', false],
    ['FALSE', false],
    ['0', false],
  ])('reads %j as %s', (text, value) => {
    expect(Query.parse({ flag: text })).toEqual({ flag: value })
  })

  // the lookup was an object literal: `constructor` and `__proto__` found what it inherits
  it.each(['yes', 'constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', ''])(
    'refuses %j with "Must be a valid boolean."',
    (text) => {
      const parsed = Query.safeParse({ flag: text })
      expect(parsed.success).toBe(false)
      expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
        'Must be a valid boolean.',
      ])
    },
  )
})

describe('orderingKey', () => {
  const fields = { name: (item: { name: string }) => item.name }

  it('reads field and -field', () => {
    expect(orderingKey('name', fields)).toEqual([fields.name, 'asc'])
    expect(orderingKey('-name', fields)).toEqual([fields.name, 'desc'])
  })

  it.each(['constructor', '-__proto__', 'toString', 'colour'])(
    'refuses %j, not an own field, as a bug of the query schema',
    (value) => {
      expect(() => orderingKey(value, fields)).toThrow('unknown ordering field')
    },
  )
})
