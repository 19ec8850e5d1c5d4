/** One entry of {@link LruMap}, in a ring of use order around the map's sentinel. */
interface Slot<K, V> {
  key: K
  value: V
  older: Slot<K, V>
  newer: Slot<K, V>
}

/**
 * The most recently used entries, at most `capacity` of them, the least recently used dropped
 * first. No clear-all: at capacity one entry goes, so a full cache never turns into a burst of
 * misses (every playing session asking the store again in the same second). Small enough for a
 * Worker's bundle.
 *
 * The order of use is a linked ring beside the `Map`, as lru-cache keeps it: a read relinks its
 * entry (a few pointer writes) instead of deleting and re-inserting it in the `Map`, which made
 * V8 compact the table every few dozen reads, a cost every session leaf paid several times.
 *
 * @example
 * ```ts
 * const answers = new LruMap<string, boolean>(10_000)
 * answers.set('sid-1', false)
 * answers.get('sid-1') // false, and now the most recently used
 * ```
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, Slot<K, V>>()
  readonly #capacity: number
  // the ring's anchor: `newer` is the least recently used entry, `older` the most recently used
  readonly #ring: Slot<K, V>

  constructor(capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('an LRU cache holds at least one entry')
    this.#capacity = capacity
    const ring = { older: undefined, newer: undefined } as unknown as Slot<K, V>
    ring.older = ring
    ring.newer = ring
    this.#ring = ring
  }

  /** The value of `key`, which becomes the most recently used; `undefined` when absent. */
  get(key: K): V | undefined {
    const slot = this.#entries.get(key)
    if (slot === undefined) return undefined
    this.#toNewest(slot)
    return slot.value
  }

  /** Whether `key` is kept (does not count as a use). */
  has(key: K): boolean {
    return this.#entries.has(key)
  }

  /** Keeps `value` as the most recently used; at capacity, the least recently used goes. */
  set(key: K, value: V): this {
    const kept = this.#entries.get(key)
    if (kept !== undefined) {
      kept.value = value
      this.#toNewest(kept)
      return this
    }
    if (this.#entries.size >= this.#capacity) this.delete(this.#ring.newer.key)
    const ring = this.#ring
    const slot: Slot<K, V> = { key, value, older: ring.older, newer: ring }
    ring.older.newer = slot
    ring.older = slot
    this.#entries.set(key, slot)
    return this
  }

  delete(key: K): boolean {
    const slot = this.#entries.get(key)
    if (slot === undefined) return false
    slot.older.newer = slot.newer
    slot.newer.older = slot.older
    return this.#entries.delete(key)
  }

  /** The keys, least recently used first. */
  *keys(): IterableIterator<K> {
    for (let slot = this.#ring.newer; slot !== this.#ring; slot = slot.newer) yield slot.key
  }

  get size(): number {
    return this.#entries.size
  }

  #toNewest(slot: Slot<K, V>): void {
    const ring = this.#ring
    if (ring.older === slot) return
    slot.older.newer = slot.newer
    slot.newer.older = slot.older
    slot.older = ring.older
    slot.newer = ring
    ring.older.newer = slot
    ring.older = slot
  }
}
