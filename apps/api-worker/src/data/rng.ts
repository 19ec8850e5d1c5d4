/**
 * A small seeded random source (mulberry32) and the picks the generators need. Injected, so one
 * seed always yields the same dataset: tests and users can rely on it.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number
  /** Integer in [min, max]. */
  int(min: number, max: number): number
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T
  /** True with probability `p`. */
  chance(p: number): boolean
  /** A random (version 4 layout) UUID. */
  uuid(): string
  /** `count` distinct elements, in random order. */
  sample<T>(items: readonly T[], count: number): T[]
}

/**
 * A seeded {@link Rng}.
 *
 * @example
 * ```ts
 * const rng = createRng(42)
 * rng.int(1, 6) // the same number for seed 42, every time
 * ```
 */
export function createRng(seed: number): Rng {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T
  const hex = (n: number) => Array.from({ length: n }, () => int(0, 15).toString(16)).join('')
  return {
    next,
    int,
    pick,
    chance: (p) => next() < p,
    uuid: () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`,
    sample: (items, count) => {
      const pool = [...items]
      for (let i = pool.length - 1; i > 0; i--) {
        const j = int(0, i)
        ;[pool[i], pool[j]] = [pool[j] as (typeof pool)[number], pool[i] as (typeof pool)[number]]
      }
      return pool.slice(0, count)
    },
  }
}

/**
 * A 32-bit FNV-1a hash: derives a per-item seed from text (a zone name, an event id).
 *
 * @example
 * ```ts
 * createRng(hash32('example.com')) // the same answers for example.com on every isolate
 * ```
 */
export function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}
