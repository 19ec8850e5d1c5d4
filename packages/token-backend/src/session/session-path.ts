/**
 * The session URL's one home: `{base}/s/{video}/{credential}/{file}`, built here for `GET /session`
 * and read back here for every file under it, and the references between its files.
 */
import { fail } from '../errors.ts'

/** Longest session path read (a credential is a few hundred characters). */
const MAX_PATH = 4096
// a leaf's query goes on to the CDN URL (CMCD, a player's own parameters): a few hundred
// characters in practice, and every distinct one is a CDN cache key of its own
const MAX_QUERY = 2048
/** `/s/{video}/{credential}/{rest}`; the credential is three base64url parts (an empty signature
 * is refused by the verification). */
const SESSION_PATH =
  /^\/s\/([A-Za-z0-9_-]{1,128})\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)\/(.+)$/

/**
 * One path segment of a session's file: no `%` (no encoded slash), no `.` or `..` (URL parsing
 * has resolved dot segments, `%2e` included, before a path gets here: this refuses what a
 * request built by hand could still carry). `=`
 * for the names DASH packagers give segments (`video=100000/…`, `audio_eng=64000-12.m4s`): a
 * plain character of a path, which can neither leave the directory nor start a query.
 */
const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._=-]{1,128}$/
const MAX_SEGMENTS = 8
/** Playlists and MPDs are fetched and rewritten; every other file is a leaf, answered by a redirect. */
const PLAYLIST = /\.m3u8$/
const MPD = /\.mpd$/

/** A file of a session's video, as its path below the video directory (`v1/seg_004.ts`). */
export interface SessionFile {
  /** The path below the video directory, segments joined by `/`. */
  rest: string
  /** `playlist` (HLS, `.m3u8`) and `mpd` (DASH, `.mpd`) are rewritten; a `leaf` is redirected. */
  kind: 'playlist' | 'mpd' | 'leaf'
}

/**
 * Validates the part of a session path after the credential (`v1/seg_004.ts`): 1 to 8 segments
 * of letters, digits, `.`, `_`, `-` and `=`, never `.` or `..`, never a `%` escape. What passes
 * can only name a file inside the session's own video directory.
 *
 * @returns `undefined` for anything else.
 * @example
 * ```ts
 * sessionFile('v1/index.m3u8')   // { rest: 'v1/index.m3u8', kind: 'playlist' }
 * sessionFile('manifest.mpd')    // { rest: 'manifest.mpd', kind: 'mpd' }
 * sessionFile('v1/seg_004.ts')   // { rest: 'v1/seg_004.ts', kind: 'leaf' }
 * sessionFile('v1/..%2Fx.ts')    // undefined
 * ```
 */
export function sessionFile(rest: string): SessionFile | undefined {
  const segments = rest.split('/')
  if (segments.length > MAX_SEGMENTS || !segments.every((segment) => SEGMENT.test(segment)))
    return undefined
  return { rest, kind: PLAYLIST.test(rest) ? 'playlist' : MPD.test(rest) ? 'mpd' : 'leaf' }
}

/**
 * The relative reference from the playlist at `from` to the file at `to`, both paths below the
 * same video directory: what a rewritten playlist says, so every client resolves it under the
 * session URL it loaded the playlist from.
 *
 * @example
 * ```ts
 * relativeReference('v1/index.m3u8', 'v1/seg_000.ts') // 'seg_000.ts'
 * relativeReference('v1/index.m3u8', 'key.bin')       // '../key.bin'
 * relativeReference('master.m3u8', 'v0/index.m3u8')   // 'v0/index.m3u8'
 * ```
 */
export function relativeReference(from: string, to: string): string {
  const base = from.split('/').slice(0, -1)
  const target = to.split('/')
  let shared = 0
  while (shared < base.length && shared < target.length - 1 && base[shared] === target[shared])
    shared++
  return '../'.repeat(base.length - shared) + target.slice(shared).join('/')
}

/**
 * Where a backend's session URLs start: `baseUrl` (`SESSION_BASE_URL`: a public URL, or a path
 * on the request's own origin) or the request's origin, then the prefix the app is routed under
 * in a parent app (`parent.route('/video', app)`), unless the base already ends with it (a
 * public URL that names the mount point is not doubled). Under `mount()`, which hides its path
 * from the app, `baseUrl` must name the mount point (`'/tok'`, `https://site/tok`).
 *
 * @example
 * ```ts
 * sessionBase('https://site/video/session', '/video', undefined)       // 'https://site/video'
 * sessionBase('https://site/video/session', '/video', 'https://site/video') // not doubled
 * sessionBase('https://site/session', '', '/tok')                      // 'https://site/tok'
 * ```
 */
export function sessionBase(
  requestUrl: string,
  prefix: string,
  baseUrl: string | undefined,
): string {
  const origin = new URL(requestUrl).origin
  const base =
    baseUrl === undefined ? origin : baseUrl.startsWith('/') ? `${origin}${baseUrl}` : baseUrl
  return new URL(base).pathname.replace(/\/+$/, '').endsWith(prefix) ? base : `${base}${prefix}`
}

/**
 * A session's URL: the master playlist (or `file`) of `video` under its credential.
 *
 * @example
 * ```ts
 * sessionUrl('https://site/video', 'demo', credential) // 'https://site/video/s/demo/<credential>/master.m3u8'
 * ```
 */
export function sessionUrl(base: string, video: string, credential: string, file = 'master.m3u8') {
  return `${base}/s/${video}/${credential}/${file}`
}

/** What a request under `/s/` asks for. */
export interface SessionRequest {
  video: string
  credential: string
  file: SessionFile
  /** The query string, `?` included, or `''`. */
  search: string
}

/**
 * Reads `/s/{video}/{credential}/{file}` back from a request URL, below the `prefix` the app is
 * routed under, refusing what could name anything outside the video (400) or is too long (414:
 * the path over 4 KiB, the query over 2 KiB).
 * The URL is absolute and has no fragment: it is cut rather than parsed (a third of a leaf
 * redirect's cost on workerd).
 *
 * @example
 * ```ts
 * sessionRequest('https://site/video/s/demo/a.b.c/v1/seg_001.ts', '/video').file
 * // { rest: 'v1/seg_001.ts', kind: 'leaf' }
 * ```
 */
export function sessionRequest(url: string, prefix: string): SessionRequest {
  const pathStart = url.indexOf('/', url.indexOf('://') + 3)
  const queryStart = url.indexOf('?', pathStart)
  const pathname = queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart)
  if (pathname.length > MAX_PATH) fail(414, 'session path too long')
  if (queryStart !== -1 && url.length - queryStart - 1 > MAX_QUERY)
    fail(414, 'session query too long: at most 2048 characters')
  if (pathname.includes('%')) fail(400, 'a session path has no percent-escapes')
  // without escapes the raw path is the one the router matched, prefix included
  const [, video, credential, rest] = SESSION_PATH.exec(pathname.slice(prefix.length)) ?? []
  const file = rest === undefined ? undefined : sessionFile(rest)
  if (video === undefined || credential === undefined || file === undefined)
    return fail(400, 'not a session file: expected /s/{video}/{session}/{file} inside the video')
  return { video, credential, file, search: queryStart === -1 ? '' : url.slice(queryStart) }
}
