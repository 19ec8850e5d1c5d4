import { cdnFileRest } from './cdn-file.ts'
import { rewritePlaylist } from './playlist-rewriter.ts'
import { relativeReference, sessionFile } from './session-path.ts'

/** Where a playlist came from and where the session serves it. */
export interface PlaylistOrigin {
  /** The CDN URL the worker fetched it from (its token pair included). */
  upstream: string
  /** Hosts whose URIs are the CDN's (`CDN_DOMAIN`, `CDN_DOMAIN_IP`). */
  cdnHosts: readonly string[]
  /** The video directory on the CDN (`/videos/12345_demo/`). */
  directory: string
  /** The playlist's path below the directory (`v1/index.m3u8`). */
  rest: string
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/

/**
 * Rewrites an upstream playlist for a session: every URI that names a file of the session's
 * video on the CDN (relative, root-relative or absolute, with or without a token pair) becomes a
 * reference relative to the session's playlist, so the client asks the session for it. Any
 * other URI (another host or video, a `data:` or `skd:` URI) is kept as the upstream wrote it:
 * the session signs nothing outside its own video directory.
 *
 * @example
 * ```ts
 * sessionPlaylist('#EXTM3U\nhttps://cdn.example.com/videos/12345_demo/tok123/1800000000/v0/index.m3u8\n', {
 *   upstream: 'https://cdn.example.com/videos/12345_demo/abcdef/1800000030/master.m3u8',
 *   cdnHosts: ['cdn.example.com'], directory: '/videos/12345_demo/', rest: 'master.m3u8',
 * })
 * // '#EXTM3U\nv0/index.m3u8\n'
 * ```
 */
export function sessionPlaylist(text: string, origin: PlaylistOrigin): string {
  const base = new URL(origin.upstream)
  return rewritePlaylist(text, (uri) => {
    if (SCHEME.test(uri) && !/^https?:/i.test(uri)) return uri
    let url: URL
    try {
      url = new URL(uri, base)
    } catch {
      return uri
    }
    const rest = cdnFileRest(url, origin)
    if (rest === undefined || sessionFile(rest) === undefined) return uri
    return relativeReference(origin.rest, rest) + url.search
  })
}
