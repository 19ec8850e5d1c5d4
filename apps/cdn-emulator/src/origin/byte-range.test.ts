import { describe, expect, it } from 'vitest'
import { byteSpan, withRange } from './byte-range.ts'

describe('byteSpan (RFC 9110 §14)', () => {
  it.each([
    ['bytes=0-99', { first: 0, last: 99 }],
    ['bytes=10-', { first: 10, last: 999 }],
    ['bytes=-100', { first: 900, last: 999 }],
    ['bytes=-5000', { first: 0, last: 999 }],
    ['bytes=990-5000', { first: 990, last: 999 }],
    ['BYTES = 1 - 2', { first: 1, last: 2 }],
  ])('%s of 1000 bytes', (header, span) => {
    expect(byteSpan(header, 1000)).toEqual(span)
  })

  it.each(['bytes=1000-', 'bytes=1000-1001', 'bytes=99999999999999999999999-', 'bytes=-0'])(
    '%s of 1000 bytes is unsatisfiable',
    (header) => {
      expect(byteSpan(header, 1000)).toBe('unsatisfiable')
    },
  )

  it.each([null, '', 'bytes=', 'bytes=-', 'bytes=5-2', 'bytes=0-1,4-5', 'items=0-1', 'bytes=a-b'])(
    '%s: the whole representation',
    (header) => {
      expect(byteSpan(header, 1000)).toBeUndefined()
    },
  )
})

describe('withRange', () => {
  const body = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7])
  it('keeps the other headers on a 206, and an If-Range (never matched) sends it all', async () => {
    const part = withRange(new Headers({ range: 'bytes=2-3' }), body, { 'content-type': 'x/y' })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-type')).toBe('x/y')
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(new Uint8Array([2, 3]))
    const all = withRange(new Headers({ range: 'bytes=2-3', 'if-range': 'x' }), body, {})
    expect(all.status).toBe(200)
    expect(all.headers.get('content-length')).toBe('8')
  })
})
