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

  it('an entry read among the newest half stays for half the capacity of new ones', () => {
    const lru = new LruMap<string, number>(10)
    for (let i = 0; i < 10; i++) lru.set(`k${i}`, i)
    expect(lru.get('k7')).toBe(7) // among the newest half: not moved
    for (let i = 10; i < 15; i++) lru.set(`k${i}`, i)
    expect(lru.has('k7')).toBe(true)
    expect([...lru.keys()].slice(0, 2)).toEqual(['k5', 'k6'])
  })

  it('a new value for a recent key is kept in place', () => {
    const lru = new LruMap<string, number>(10)
    for (let i = 0; i < 10; i++) lru.set(`k${i}`, i)
    lru.set('k8', 80)
    expect([...lru.keys()].slice(-2)).toEqual(['k8', 'k9'])
    expect(lru.get('k8')).toBe(80)
    expect(lru.size).toBe(10)
  })

  it('an older entry read moves to the end', () => {
    const lru = new LruMap<string, number>(4)
    lru.set('a', 1).set('b', 2).set('c', 3).set('d', 4)
    expect(lru.get('a')).toBe(1)
    lru.set('e', 5)
    expect([...lru.keys()]).toEqual(['c', 'd', 'a', 'e'])
    expect(lru.has('b')).toBe(false)
  })

  it('holds at least one entry', () => {
    expect(() => new LruMap(0)).toThrow(RangeError)
  })
})
