import type { RecordEntry, Seen } from '../protocol.ts'

/**
 * A record as the worker stores it: with what it moved of the video, so that a page asking
 * after a restart (`seen`) gets the answer it would have got before.
 */
export interface StoredEntry extends RecordEntry {
  seen?: Seen
}

/**
 * Where the worker keeps a copy of its records, so a worker the browser stopped and started
 * again (it does so whenever it likes) knows the current pairs before any page answers.
 */
export interface RecordStore {
  load(): Promise<StoredEntry[]>
  save(entries: StoredEntry[]): Promise<void>
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
      // a Cache Storage that never answers (it happens: at the open, the match or the read)
      // must not hold the worker for good: one deadline for the whole read
      const entries: unknown = await Promise.race([
        (async () => (await (await storage.open(name)).match(STATE_URL))?.json())(),
        new Promise((resolve) => setTimeout(resolve, 1000)),
      ]).catch(() => undefined)
      return Array.isArray(entries) ? (entries as StoredEntry[]) : []
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
export function memoryStore(): RecordStore & { entries: StoredEntry[] } {
  const store = {
    entries: [] as StoredEntry[],
    load: async () => structuredClone(store.entries),
    save: async (entries: StoredEntry[]) => {
      store.entries = structuredClone(entries)
    },
  }
  return store
}
