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

  it('keeps the exact order of use through reads, writes and deletes', () => {
    const lru = new LruMap<string, number>(10_000)
    for (let i = 0; i < 10_000; i++) lru.set(`k${i}`, i)
    // a read of an entry among the newest is exactly the most recently used, too
    expect(lru.get('k9000')).toBe(9000)
    expect(lru.get('k0')).toBe(0)
    expect(lru.delete('k5')).toBe(true)
    expect(lru.delete('k5')).toBe(false)
    for (let i = 10_000; i < 19_998; i++) lru.set(`k${i}`, i)
    // 9,998 new entries: every old one but the two read has gone
    expect([...lru.keys()].slice(0, 2)).toEqual(['k9000', 'k0'])
    expect(lru.size).toBe(10_000)
    lru.set('new', 1)
    expect(lru.has('k9000')).toBe(false)
    expect(lru.has('k0')).toBe(true)
  })

  it('keeps the whole order through mixed uses at both ends', () => {
    const lru = new LruMap<string, number>(4)
    lru.set('a', 1).set('b', 2).set('c', 3)
    expect(lru.get('c')).toBe(3) // the newest read: stays the newest
    lru.set('c', 30) // the newest written
    expect(lru.delete('c')).toBe(true) // the newest deleted
    lru.set('d', 4).set('e', 5)
    expect(lru.delete('a')).toBe(true) // the oldest deleted
    expect(lru.get('b')).toBe(2)
    lru.set('f', 6).set('g', 7) // at capacity: d goes
    expect([...lru.keys()]).toEqual(['e', 'b', 'f', 'g'])
    const seen: string[] = []
    for (const key of lru.keys()) {
      seen.push(key)
      lru.delete(key) // deleting the key the iteration stands on
    }
    expect(seen).toEqual(['e', 'b', 'f', 'g'])
    expect(lru.size).toBe(0)
    lru.set('h', 8)
    expect([...lru.keys()]).toEqual(['h'])
  })

  it('a cache of one keeps the last entry', () => {
    const lru = new LruMap<string, number>(1)
    lru.set('a', 1).set('b', 2)
    expect([...lru.keys()]).toEqual(['b'])
    expect(lru.get('a')).toBeUndefined()
    expect(lru.delete('b')).toBe(true)
    expect([...lru.keys()]).toEqual([])
    expect(lru.size).toBe(0)
  })

  it('holds at least one entry', () => {
    expect(() => new LruMap(0)).toThrow(RangeError)
  })
})
