import { fail } from '../errors.ts'
import { type PlaylistCache, playlistTtl } from './playlist-cache.ts'

/** How long the worker waits for the CDN's playlist: players retry sooner than a hung fetch. */
const UPSTREAM_TIMEOUT_MS = 10_000
/** Largest playlist the worker reads (a 24-h VOD of 2-s segments is about 3 MB). */
const MAX_PLAYLIST_BYTES = 8 * 1024 * 1024

/**
 * Fetches playlists from the CDN through a cache, one request at a time per path (viewers who
 * ask together share one fetch). `key` names the playlist without any token; `url()` signs the
 * CDN URL only when a fetch is needed. Failures are `{error}` answers: 404 when the CDN has no
 * such playlist, 502 when the CDN refuses the worker's own URL or cannot be read.
 *
 * @example
 * ```ts
 * const upstream = upstreamPlaylists(memoryPlaylists())
 * const text = await upstream.get('/videos/12345_demo/master.m3u8', 'vod', () => signedUrl)
 * ```
 */
export function upstreamPlaylists(cache: PlaylistCache, fetcher: typeof fetch = fetch) {
  const inFlight = new Map<string, Promise<string>>()
  const load = async (key: string, type: 'vod' | 'live', url: string): Promise<string> => {
    let response: Response
    try {
      response = await fetcher(url, {
        redirect: 'manual',
        signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      })
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError')
        return fail(
          504,
          `the CDN did not answer the playlist within ${UPSTREAM_TIMEOUT_MS / 1000} s`,
        )
      return fail(502, 'the CDN could not be reached for the playlist')
    }
    const { status } = response
    if (status === 404 || status === 400) {
      await response.body?.cancel()
      return fail(404, `no such playlist: ${key.split('/').slice(3).join('/')}`)
    }
    if (status === 403 || status === 410) {
      await response.body?.cancel()
      // the worker's own URL: the signing configuration does not match the CDN's
      console.error(
        `token-worker: the CDN answered ${status} to a session playlist URL: check SECRET_KEY, CLIENT_ID and CDN_DOMAIN`,
      )
      return fail(502, `the CDN refused the playlist URL signed by this worker (${status})`)
    }
    if (status !== 200) {
      await response.body?.cancel()
      return fail(502, `the CDN answered ${status} for the playlist`)
    }
    const length = Number(response.headers.get('content-length') ?? 0)
    if (length > MAX_PLAYLIST_BYTES) {
      await response.body?.cancel()
      return fail(502, 'the playlist is larger than the worker reads')
    }
    const text = await response.text()
    if (!text.startsWith('#EXTM3U') || text.length > MAX_PLAYLIST_BYTES)
      return fail(502, 'the CDN answered something that is not a playlist')
    const ttl = playlistTtl(response.headers.get('cache-control'), type)
    // a cache that cannot store never fails the viewer
    if (ttl > 0) await cache.put(key, text, ttl).catch(() => undefined)
    return text
  }
  return {
    async get(key: string, type: 'vod' | 'live', url: () => string): Promise<string> {
      const cached = await cache.get(key).catch(() => undefined)
      if (cached !== undefined) return cached
      let pending = inFlight.get(key)
      if (pending === undefined) {
        pending = load(key, type, url()).finally(() => inFlight.delete(key))
        inFlight.set(key, pending)
      }
      return pending
    },
  }
}
