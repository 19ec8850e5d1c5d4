/**
 * The most recently used entries, at most `capacity` of them: a `Map` kept in order of use (a
 * read moves its entry to the end), the least recently used dropped first. No clear-all: at
 * capacity one entry goes, so a full cache never turns into a burst of misses (every playing
 * session asking the store again in the same second). Small enough for a Worker's bundle.
 *
 * @example
 * ```ts
 * const answers = new LruMap<string, boolean>(10_000)
 * answers.set('sid-1', false)
 * answers.get('sid-1') // false, and now the most recently used
 * ```
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, V>()
  readonly #capacity: number

  constructor(capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('an LRU cache holds at least one entry')
    this.#capacity = capacity
  }

  /** The value of `key`, which becomes the most recently used; `undefined` when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key)
    if (value === undefined) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, value)
    return value
  }

  /** Whether `key` is kept (does not count as a use). */
  has(key: K): boolean {
    return this.#entries.has(key)
  }

  /** Keeps `value` as the most recently used; at capacity, the least recently used goes. */
  set(key: K, value: V): this {
    this.#entries.delete(key)
    if (this.#entries.size >= this.#capacity)
      this.#entries.delete(this.#entries.keys().next().value as K)
    this.#entries.set(key, value)
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
