import { cdnFailureOf } from '@proj/signing'
import { HTTPException } from 'hono/http-exception'
import { fail } from '../errors.ts'
import type { CdnFailureReport } from './cdn-health.ts'
import { type PlaylistCache, playlistTtl } from './playlist-cache.ts'

/** How long the worker waits for the CDN's playlist: players retry sooner than a hung fetch. */
export const UPSTREAM_TIMEOUT_MS = 10_000
/** Largest playlist the worker reads (a 24-h VOD of 2-s segments is about 3 MB). */
const MAX_PLAYLIST_BYTES = 8 * 1024 * 1024

/** One place a playlist can be fetched from: one CDN's signed URL, told how its fetch went. */
export interface PlaylistSource {
  url: string
  /** Default {@link UPSTREAM_TIMEOUT_MS}; shorter when another CDN can answer instead. */
  timeoutMs?: number
  /** This CDN failed the fetch: why, in the words the player core uses too. */
  failed?(fault: CdnFailureReport): void
  /** This CDN answered the playlist. */
  succeeded?(): void
}

/** One signed URL, or CDNs to try in order (the next one when a CDN fails: never on a 404). */
export type PlaylistSources = string | readonly PlaylistSource[]

/** A fetch that went wrong, and whether the CDN is to blame (then the next one is tried). */
interface Miss {
  status: 404 | 502 | 503 | 504
  message: string
  /** What the CDN did wrong; `undefined` for a 404, which another CDN would answer too. */
  fault: CdnFailureReport | undefined
  /** The CDN's own `Retry-After` (seconds), passed on with a 503. */
  retryAfter?: string | undefined
}

const miss = (
  status: 404 | 502 | 503 | 504,
  message: string,
  fault?: CdnFailureReport,
  retryAfter?: string,
): Miss => ({ status, message, fault, retryAfter })

/** A CDN's `Retry-After` in seconds (1 to 3600), the one form passed on; `undefined` otherwise. */
const retryAfterOf = (response: Response): string | undefined => {
  const value = response.headers.get('retry-after')?.trim() ?? ''
  return /^\d{1,4}$/.test(value) && Number(value) >= 1 && Number(value) <= 3600 ? value : undefined
}

/**
 * A CDN's status other than 200 to a URL this backend signed just now: a refusal (its secret or
 * clock is not ours) or a 5xx in the shared words; any other status (as a body that is no
 * playlist) is the CDN not serving what it should: a server error too, so the next CDN is asked.
 */
const faultOf = (status: number): CdnFailureReport => ({
  failure: cdnFailureOf(status, { tokenFresh: true }) ?? 'server-error',
  status,
})

/**
 * Whether a body is the kind of document its path names: an HLS playlist starts with `#EXTM3U`;
 * an MPD (`.mpd`) is XML naming an `MPD`, checked in full by the rewriter, whose refusal is the
 * document's fault, not the CDN's. Anything else (an error page with a 200) is the CDN failing.
 */
const looksLike = (key: string, text: string) =>
  MPD_KEY.test(key) ? /^\uFEFF?\s*</.test(text) && text.includes('MPD') : text.startsWith('#EXTM3U')
const MPD_KEY = /\.mpd$/

/** A playlist as the CDN answered it. */
interface Hit {
  text: string
  cacheControl: string | null
}

/** Fetches and checks one playlist from one CDN: its text, or what went wrong. */
async function fetchPlaylist(
  fetcher: typeof fetch,
  key: string,
  { url, timeoutMs = UPSTREAM_TIMEOUT_MS }: PlaylistSource,
): Promise<Hit | Miss> {
  let response: Response
  try {
    response = await fetcher(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError')
      return miss(504, `the CDN did not answer the playlist within ${timeoutMs / 1000} s`, {
        failure: 'timeout',
      })
    return miss(502, 'the CDN could not be reached for the playlist', { failure: 'network' })
  }
  const { status } = response
  if (status !== 200) await response.body?.cancel()
  if (status === 404 || status === 400)
    return miss(404, `no such playlist: ${key.split('/').slice(3).join('/')}`)
  if (status === 403 || status === 410) {
    // the worker's own URL: the signing configuration does not match the CDN's
    console.error(
      `token-backend: the CDN answered ${status} to a session playlist URL: check SECRET_KEY, CLIENT_ID and CDN_DOMAIN`,
    )
    return miss(
      502,
      `the CDN refused the playlist URL signed by this worker (${status})`,
      faultOf(status),
    )
  }
  // a CDN that says when to come back (429, 503 with Retry-After): a 503 that says it too
  const retryAfter = status === 429 || status === 503 ? retryAfterOf(response) : undefined
  if (status !== 200)
    return miss(
      retryAfter === undefined ? 502 : 503,
      `the CDN answered ${status} for the playlist`,
      faultOf(status),
      retryAfter,
    )
  const length = Number(response.headers.get('content-length') ?? 0)
  if (length > MAX_PLAYLIST_BYTES) {
    await response.body?.cancel()
    return miss(502, 'the playlist is larger than the worker reads', { failure: 'server-error' })
  }
  // bytes, decoded here: Response.text() on a playlist's content type makes workerd warn that
  // the body does not look like text
  const text = new TextDecoder().decode(await response.arrayBuffer())
  if (!looksLike(key, text) || text.length > MAX_PLAYLIST_BYTES)
    return miss(502, 'the CDN answered something that is not a playlist', {
      failure: 'server-error',
    })
  return { text, cacheControl: response.headers.get('cache-control') }
}

/**
 * Fetches playlists from the CDN through a cache, one request at a time per path (viewers who
 * ask together share one fetch). `key` names the playlist without any token; `sources()` signs
 * the CDN URL (or each CDN's, tried in order) only when a fetch is needed. Failures are `{error}`
 * answers: 404 when the CDN has no such playlist, 502 when the CDN refuses the worker's own URL
 * or cannot be read, 503 with the CDN's `Retry-After` when it answered 429 or 503 with one, 504
 * when it does not answer; with several CDNs, the last one's.
 *
 * @example
 * ```ts
 * const upstream = upstreamPlaylists(memoryPlaylists())
 * const text = await upstream.get('/videos/12345_demo/master.m3u8', 'vod', () => signedUrl)
 * ```
 */
export function upstreamPlaylists(cache: PlaylistCache, fetcher: typeof fetch = fetch) {
  const inFlight = new Map<string, Promise<string>>()
  const load = async (
    key: string,
    type: 'vod' | 'live',
    given: PlaylistSources,
  ): Promise<string> => {
    const sources = typeof given === 'string' ? [{ url: given }] : given
    let last: Miss = miss(502, 'no CDN to fetch the playlist from')
    for (const source of sources) {
      const outcome = await fetchPlaylist(fetcher, key, source)
      if ('text' in outcome) {
        source.succeeded?.()
        const ttl = playlistTtl(outcome.cacheControl, type)
        // a cache that cannot store never fails the viewer
        if (ttl > 0) await cache.put(key, outcome.text, ttl).catch(() => undefined)
        return outcome.text
      }
      last = outcome
      if (outcome.fault === undefined) break
      source.failed?.(outcome.fault)
    }
    if (last.retryAfter === undefined) return fail(last.status, last.message)
    throw new HTTPException(last.status, {
      message: last.message,
      res: new Response(null, { headers: { 'retry-after': last.retryAfter } }),
    })
  }
  return {
    async get(
      key: string,
      type: 'vod' | 'live',
      sources: () => PlaylistSources | Promise<PlaylistSources>,
    ): Promise<string> {
      const cached = await cache.get(key).catch(() => undefined)
      if (cached !== undefined) return cached
      let pending = inFlight.get(key)
      if (pending === undefined) {
        pending = Promise.resolve(sources())
          .then((given) => load(key, type, given))
          .finally(() => inFlight.delete(key))
        inFlight.set(key, pending)
      }
      return pending
    },
  }
}
