import { afterEach, describe, expect, it, vi } from 'vitest'
import { cacheStore } from './record-store.ts'

afterEach(() => {
  vi.useRealTimers()
})

/** A Cache Storage whose `open` never settles, as a broken profile's may. */
const silentStorage = () =>
  ({ open: () => new Promise<never>(() => undefined) }) as unknown as CacheStorage
/** A Cache Storage whose one cache is `cache`. */
const storageOf = (cache: object) => ({ open: async () => cache }) as unknown as CacheStorage

describe('cacheStore', () => {
  it.each([
    ['open', silentStorage()],
    ['match', storageOf({ match: () => new Promise<never>(() => undefined) })],
    [
      'json',
      storageOf({ match: async () => ({ json: () => new Promise<never>(() => undefined) }) }),
    ],
  ])(
    'a Cache Storage whose %s never answers: load gives up after a second with nothing',
    async (_, storage) => {
      vi.useFakeTimers()
      let loaded: unknown
      void cacheStore('state', storage)
        .load()
        .then((entries) => {
          loaded = entries
        })
      await vi.advanceTimersByTimeAsync(999)
      expect(loaded).toBeUndefined()
      await vi.advanceTimersByTimeAsync(1)
      expect(loaded).toEqual([])
    },
  )

  it('a Cache Storage that refuses (storage full, private mode): nothing, and nothing thrown', async () => {
    const refusing = {
      open: async () => {
        throw new DOMException('quota', 'QuotaExceededError')
      },
    } as unknown as CacheStorage
    const store = cacheStore('state', refusing)
    await expect(store.save([])).resolves.toBeUndefined()
    await expect(store.load()).resolves.toEqual([])
  })
})
