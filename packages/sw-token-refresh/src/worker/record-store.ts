import type { RecordEntry } from '../protocol.ts'

/**
 * Where the worker keeps a copy of its records, so a worker the browser stopped and started
 * again (it does so whenever it likes) knows the current pairs before any page answers.
 */
export interface RecordStore {
  load(): Promise<RecordEntry[]>
  save(entries: RecordEntry[]): Promise<void>
}

const STATE_URL = '/__token-refresh/state.json'

/**
 * A {@link RecordStore} in Cache Storage (one small JSON document; media is never stored).
 * Failures (storage full, private mode) are swallowed: the worker then asks its pages.
 *
 * @example
 * ```ts
 * const store = cacheStore()
 * await store.save(entries)
 * ```
 */
export function cacheStore(
  name = 'token-refresh-state-v1',
  storage: CacheStorage = caches,
): RecordStore {
  return {
    async load() {
      try {
        const response = await (await storage.open(name)).match(STATE_URL)
        const entries: unknown = await response?.json()
        return Array.isArray(entries) ? (entries as RecordEntry[]) : []
      } catch {
        return []
      }
    },
    async save(entries) {
      try {
        const body = JSON.stringify(entries)
        await (await storage.open(name)).put(
          STATE_URL,
          new Response(body, { headers: { 'content-type': 'application/json' } }),
        )
      } catch {
        // best effort: the pages still hold every record
      }
    },
  }
}

/**
 * A {@link RecordStore} in memory, for tests: a "restarted" worker
 * built on the same store finds what the previous one saved.
 *
 * @example
 * ```ts
 * const store = memoryStore()
 * ```
 */
export function memoryStore(): RecordStore & { entries: RecordEntry[] } {
  const store = {
    entries: [] as RecordEntry[],
    load: async () => structuredClone(store.entries),
    save: async (entries: RecordEntry[]) => {
      store.entries = structuredClone(entries)
    },
  }
  return store
}
