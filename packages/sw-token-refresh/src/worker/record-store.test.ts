import { afterEach, describe, expect, it, vi } from 'vitest'
import { cacheStore } from './record-store.ts'

afterEach(() => {
  vi.useRealTimers()
})

/** A Cache Storage whose `open` never settles, as a broken profile's may. */
const silentStorage = () =>
  ({ open: () => new Promise<never>(() => undefined) }) as unknown as CacheStorage

describe('cacheStore', () => {
  it('a Cache Storage that never answers: load gives up after a second with nothing', async () => {
    vi.useFakeTimers()
    let loaded: unknown
    void cacheStore('state', silentStorage())
      .load()
      .then((entries) => {
        loaded = entries
      })
    await vi.advanceTimersByTimeAsync(999)
    expect(loaded).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(loaded).toEqual([])
  })

  it.each([
    ['match', { match: () => new Promise<never>(() => undefined) }],
    ['json', { match: async () => ({ json: () => new Promise<never>(() => undefined) }) }],
  ])('a cache whose %s never answers: the same one second for the whole read', async (_, cache) => {
    vi.useFakeTimers()
    let loaded: unknown
    const storage = { open: async () => cache } as unknown as CacheStorage
    void cacheStore('state', storage)
      .load()
      .then((entries) => {
        loaded = entries
      })
    await vi.advanceTimersByTimeAsync(999)
    expect(loaded).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(loaded).toEqual([])
  })

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
