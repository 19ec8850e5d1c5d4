import { streamType } from '@proj/signing'

/** One path segment of a session's file: no `%` (no encoded slash or dot), no `.` or `..`. */
const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$/
const MAX_SEGMENTS = 8
/** Playlists are fetched and rewritten; every other file is a leaf, answered by a redirect. */
const PLAYLIST = /\.m3u8$/

/** A file of a session's video, as its path below the video directory (`v1/seg_004.ts`). */
export interface SessionFile {
  /** The path below the video directory, segments joined by `/`. */
  rest: string
  kind: 'playlist' | 'leaf'
}

/**
 * Validates the part of a session path after the credential (`v1/seg_004.ts`): 1 to 8 segments
 * of letters, digits, `.`, `_` and `-`, never `.` or `..`, never a `%` escape. What passes can
 * only name a file inside the session's own video directory.
 *
 * @returns `undefined` for anything else.
 * @example
 * ```ts
 * sessionFile('v1/index.m3u8')   // { rest: 'v1/index.m3u8', kind: 'playlist' }
 * sessionFile('v1/seg_004.ts')   // { rest: 'v1/seg_004.ts', kind: 'leaf' }
 * sessionFile('v1/..%2Fx.ts')    // undefined
 * ```
 */
export function sessionFile(rest: string): SessionFile | undefined {
  const segments = rest.split('/')
  if (segments.length > MAX_SEGMENTS || !segments.every((segment) => SEGMENT.test(segment)))
    return undefined
  return { rest, kind: PLAYLIST.test(rest) ? 'playlist' : 'leaf' }
}

/**
 * The video directory on the CDN (`/videos/12345_demo/`, `/cmaf/12345_demo/`): the token pair
 * follows it, then the file.
 *
 * @example
 * ```ts
 * videoDirectory('12345', 'demo', 'vod') // '/videos/12345_demo/'
 * ```
 */
export function videoDirectory(clientId: string, video: string, type: string): string {
  return `/${streamType(type) === 'vod' ? 'videos' : 'cmaf'}/${clientId}_${video}/`
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
