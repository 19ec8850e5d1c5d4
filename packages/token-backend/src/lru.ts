/**
 * The most recently used entries, at most `capacity` of them: a `Map` kept in order of use, the
 * least recently used dropped first. No clear-all: at capacity one entry goes, so a full cache
 * never turns into a burst of misses (every playing session asking the store again in the same
 * second). Small enough for a Worker's bundle.
 *
 * A read (or a new value for a kept key) moves its entry to the end only if it is not among the
 * newest half already: moving means a `Map` delete and insert (and, every few dozen, V8
 * compacting the table), which a session's leaves and a stream's refreshes would otherwise pay
 * on every use of an entry used a moment ago. An entry used is therefore never the next to go
 * before half the capacity of newer entries has come.
 *
 * @example
 * ```ts
 * const answers = new LruMap<string, boolean>(10_000)
 * answers.set('sid-1', false)
 * answers.get('sid-1') // false, and now among the most recently used
 * ```
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, { value: V; used: number }>()
  readonly #capacity: number
  // counts insertions and moves: an entry's `used` is its place in the map's order
  #clock = 0

  constructor(capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('an LRU cache holds at least one entry')
    this.#capacity = capacity
  }

  /** The value of `key`, which becomes one of the most recently used; `undefined` when absent. */
  get(key: K): V | undefined {
    const slot = this.#entries.get(key)
    if (slot === undefined) return undefined
    this.#touch(key, slot)
    return slot.value
  }

  #touch(key: K, slot: { value: V; used: number }): void {
    if (this.#clock - slot.used < this.#capacity >>> 1) return
    this.#entries.delete(key)
    slot.used = ++this.#clock
    this.#entries.set(key, slot)
  }

  /** Whether `key` is kept (does not count as a use). */
  has(key: K): boolean {
    return this.#entries.has(key)
  }

  /**
   * Keeps `value` as one of the most recently used (a kept key: as a read, in place); at
   * capacity, the least recently used goes.
   */
  set(key: K, value: V): this {
    const kept = this.#entries.get(key)
    if (kept !== undefined) {
      kept.value = value
      this.#touch(key, kept)
      return this
    }
    if (this.#entries.size >= this.#capacity)
      this.#entries.delete(this.#entries.keys().next().value as K)
    this.#entries.set(key, { value, used: ++this.#clock })
    return this
  }

  delete(key: K): boolean {
    return this.#entries.delete(key)
  }

  /** The keys, least recently used first. */
  keys(): IterableIterator<K> {
    return this.#entries.keys()
  }

  get size(): number {
    return this.#entries.size
  }
}
