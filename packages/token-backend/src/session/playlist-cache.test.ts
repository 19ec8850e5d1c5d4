import { describe, expect, it } from 'vitest'
import { cacheApiPlaylists, memoryPlaylists, playlistTtl } from './playlist-cache.ts'

describe('playlistTtl', () => {
  it.each([
    ['no-store', 'vod', 0],
    ['private, max-age=60', 'vod', 0],
    ['no-cache', 'live', 0],
    ['max-age=10', 'live', 10],
    ['public, s-maxage=5, max-age=30', 'vod', 5],
    ['max-age=86400', 'vod', 300],
    [null, 'vod', 60],
    [null, 'live', 1],
  ] as const)('%j for %s → %d s', (header, type, ttl) => {
    expect(playlistTtl(header, type)).toBe(ttl)
  })
})

describe('memoryPlaylists', () => {
  it('forgets expired entries and keeps to its bounds, oldest out first', async () => {
    let clock = 0
    const cache = memoryPlaylists({ maxEntries: 2, maxBytes: 10 }, () => clock)
    await cache.put('/a', 'aaaa', 1)
    await cache.put('/b', 'bbbb', 10)
    await cache.put('/c', 'cccc', 10) // over 10 bytes and 2 entries: /a goes
    expect(await cache.get('/a')).toBeUndefined()
    expect(await cache.get('/b')).toBe('bbbb')
    await cache.put('/huge', 'x'.repeat(11), 10) // larger than the cache: not kept
    expect(await cache.get('/huge')).toBeUndefined()
    clock = 10_000
    expect(await cache.get('/b')).toBeUndefined()
    expect(cache.size).toBe(1)
  })
})

describe('cacheApiPlaylists', () => {
  it('keeps playlists in the Workers Cache API under a key of their own', async () => {
    const cache = cacheApiPlaylists(await caches.open('playlist-cache-test'))
    expect(await cache.get('/videos/1_demo/master.m3u8')).toBeUndefined()
    await cache.put('/videos/1_demo/master.m3u8', '#EXTM3U\n', 60)
    expect(await cache.get('/videos/1_demo/master.m3u8')).toBe('#EXTM3U\n')
  })
})
