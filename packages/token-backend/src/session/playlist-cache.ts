/**
 * Where upstream playlists are kept between viewers, keyed by their path on the CDN (no token):
 * the Workers Cache API at the edge, bounded memory on Node.
 */
export interface PlaylistCache {
  get(key: string): Promise<string | undefined>
  put(key: string, text: string, ttlSeconds: number): Promise<void>
}

// Cache API keys must be URLs; this host never resolves (RFC 2606).
const cacheKey = (key: string) => `https://playlists.session.invalid${key}`

/**
 * The Workers Cache API (the data centre's cache) as a {@link PlaylistCache}.
 *
 * @example
 * ```ts
 * const playlists = cacheApiPlaylists(caches.default)
 * ```
 */
export function cacheApiPlaylists(cache: Cache): PlaylistCache {
  return {
    async get(key) {
      const hit = await cache.match(cacheKey(key))
      return hit?.text()
    },
    put: (key, text, ttlSeconds) =>
      cache.put(
        cacheKey(key),
        new Response(text, { headers: { 'cache-control': `max-age=${ttlSeconds}` } }),
      ),
  }
}

/**
 * A {@link PlaylistCache} in process memory, bounded by entries and bytes (oldest out first).
 *
 * @example
 * ```ts
 * const playlists = memoryPlaylists({ maxEntries: 512, maxBytes: 32 * 1024 * 1024 })
 * ```
 */
export function memoryPlaylists(
  {
    maxEntries = 512,
    maxBytes = 32 * 1024 * 1024,
  }: { maxEntries?: number; maxBytes?: number } = {},
  now: () => number = Date.now,
): PlaylistCache & { readonly size: number } {
  const entries = new Map<string, { text: string; until: number }>()
  let bytes = 0
  const remove = (key: string) => {
    const entry = entries.get(key)
    if (entry === undefined) return
    bytes -= entry.text.length
    entries.delete(key)
  }
  return {
    async get(key) {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.until <= now()) {
        remove(key)
        return undefined
      }
      return entry.text
    },
    async put(key, text, ttlSeconds) {
      remove(key)
      if (text.length > maxBytes) return
      while (entries.size >= maxEntries || bytes + text.length > maxBytes)
        remove(entries.keys().next().value as string)
      entries.set(key, { text, until: now() + ttlSeconds * 1000 })
      bytes += text.length
    },
    get size() {
      return entries.size
    },
  }
}

/** Longest a playlist is kept, whatever the CDN says. */
const MAX_TTL_SECONDS = 300

/**
 * How long an upstream playlist may be reused: never when the CDN says `no-store`, `no-cache` or
 * `private`; its `max-age` (at most 5 min) when it gives one; else 60 s for VOD (which does not
 * change) and 1 s for live (a live playlist changes every segment, but viewers of one stream
 * share each version).
 *
 * @example
 * ```ts
 * playlistTtl('max-age=10', 'live') // 10
 * playlistTtl(null, 'vod')          // 60
 * playlistTtl('no-store', 'vod')    // 0
 * ```
 */
export function playlistTtl(cacheControl: string | null, type: 'vod' | 'live'): number {
  const directives = (cacheControl ?? '').toLowerCase()
  if (/(^|[\s,])(no-store|no-cache|private)([\s,=]|$)/.test(directives)) return 0
  // a shared cache's own directive first (s-maxage), else the browser's
  const maxAge = (/(?:^|[\s,])s-maxage=(\d+)/.exec(directives) ??
    /(?:^|[\s,])max-age=(\d+)/.exec(directives))?.[1]
  if (maxAge !== undefined) return Math.min(Number(maxAge), MAX_TTL_SECONDS)
  return type === 'vod' ? 60 : 1
}
