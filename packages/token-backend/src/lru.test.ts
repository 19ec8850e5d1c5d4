import { describe, expect, it } from 'vitest'
import { LruMap } from './lru.ts'

describe('LruMap', () => {
  it('drops the least recently used entry at capacity, never all of them', () => {
    const lru = new LruMap<string, number>(3)
    lru.set('a', 1).set('b', 2).set('c', 3)
    expect(lru.get('a')).toBe(1) // a is now the most recently used
    lru.set('d', 4)
    expect([...lru.keys()]).toEqual(['c', 'a', 'd'])
    expect(lru.has('b')).toBe(false)
    expect(lru.size).toBe(3)
  })

  it('setting a kept key refreshes it without dropping another', () => {
    const lru = new LruMap<string, number>(2)
    lru.set('a', 1).set('b', 2).set('a', 3)
    expect([...lru.keys()]).toEqual(['b', 'a'])
    expect(lru.get('a')).toBe(3)
  })

  it('holds at least one entry', () => {
    expect(() => new LruMap(0)).toThrow(RangeError)
  })
})
