import { Hono } from 'hono'
import { shiftSegmentTime, trackTimescale } from './fmp4-time.ts'
import { liveDashSegment, liveMpd, readVodMpd, type VodMpd } from './live-mpd.ts'
import {
  livePlaylist,
  liveSegmentIndex,
  liveSequence,
  newestLiveSequence,
  parseVodPlaylist,
} from './live-playlist.ts'
import { mediaReader } from './media-files.ts'
import { parseXml } from './xml-tree.ts'

// A rendition is one folder of the media directory: never a path (`..`, `/`, `.`).
const RENDITION = /^[A-Za-z0-9_-]+$/

const TYPES: Record<string, string> = {
  m3u8: 'application/vnd.apple.mpegurl',
  ts: 'video/mp2t',
  bin: 'application/octet-stream',
  mpd: 'application/dash+xml',
  m4s: 'video/iso.segment',
  mp4: 'video/mp4',
}

/**
 * An answer with its `content-length`: Hono answers HEAD with GET's headers and no body, so the
 * length must be a header to reach HEAD (the Node adapter would add it to GET's body only).
 */
const sized = (
  body: Uint8Array<ArrayBuffer> | string,
  headers: Record<string, string>,
): Response => {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body
  return new Response(bytes, {
    headers: { ...headers, 'content-length': String(bytes.byteLength) },
  })
}

/**
 * The names of a request's path, each segment decoded once (the CDN encodes each one, see the
 * CDN's `originPath`); `undefined` for a bad escape. Hono's own `path` leaves `%25` and `%2F`
 * encoded, which would be a second encoding of a file's name, not its name.
 */
const pathNames = (url: string): string[] | undefined => {
  try {
    return new URL(url).pathname.split('/').slice(1).map(decodeURIComponent)
  } catch {
    return undefined
  }
}

/** Options of {@link createOrigin}. */
export interface OriginOptions {
  /** The directory holding `master.m3u8` and the rendition folders (`media/vod`). */
  mediaDir: string
  /** When segment 0 of the live stream started (ms). Default: 60 s before the origin was made. */
  liveEpochMs?: number
  /** Live sliding window, in segments. Default 6 (12 s). */
  liveWindow?: number
  now?: () => number
}

/**
 * The origin behind the CDN (the emulator's and nginx's): token-free paths.
 *
 * - `GET /vod/{client_video}/{file}`: the test media as static files;
 * - `GET /live/{client_video}/{rendition}/index.m3u8`: a sliding window over the same segments,
 *   advancing with the clock (`live_{sequence}.ts` segments, same key); other live files are the
 *   VOD's. Every video name plays the same media.
 * - `GET /live/{client_video}/manifest.mpd`: the same live stream in DASH, a dynamic MPD over the
 *   VOD's DASH segments (`dash/live-{representation}-{number}.m4s`, each loop's media times moved
 *   on by the VOD's length: one continuous timeline).
 *
 * A live segment past the live edge (not produced yet) is a 404; one that left the window is
 * still served, as a packager keeps it for players that are behind. A `Range` is not served: every
 * answer is the whole file (200), which the e2e suite and its clients (ffmpeg, VLC, Chromium's own
 * HLS all send `Range: bytes=0-`) count on.
 *
 * @example
 * ```ts
 * serve({ fetch: createOrigin({ mediaDir: 'media/vod' }).fetch, port: 8090 })
 * ```
 */
export function createOrigin({
  mediaDir,
  now = Date.now,
  liveEpochMs = now() - 60_000,
  liveWindow = 6,
}: OriginOptions) {
  // every read goes through it: only files really inside the media directory, links followed
  const read = mediaReader(mediaDir)
  const readText = (names: readonly string[]) => read(names).then((bytes) => bytes.toString('utf8'))
  const file = async (names: readonly string[]): Promise<Response> => {
    const body = await read(names).catch(() => undefined)
    if (!body) return new Response('not found', { status: 404 })
    const type = TYPES[names.at(-1)?.split('.').pop() ?? ''] ?? 'application/octet-stream'
    return sized(body, { 'content-type': type })
  }
  // One entry per rendition folder that exists: names are checked first, failures dropped.
  const playlists = new Map<string, Promise<ReturnType<typeof parseVodPlaylist>>>()
  const vodPlaylist = (rendition: string) => {
    if (!RENDITION.test(rendition)) return Promise.reject(new Error('not a rendition'))
    let playlist = playlists.get(rendition)
    if (!playlist) {
      playlist = readText([rendition, 'index.m3u8']).then(parseVodPlaylist)
      playlists.set(rendition, playlist)
      playlist.catch(() => playlists.delete(rendition))
    }
    return playlist
  }
  let mpd: Promise<VodMpd> | undefined
  const vodMpd = () => {
    mpd ??= readText(['manifest.mpd']).then((text) => readVodMpd(parseXml(text)))
    mpd.catch(() => {
      mpd = undefined
    })
    return mpd
  }
  const timescales = new Map<string, Promise<number>>()
  // Whether the live edge has reached a segment: later ones are a 404, as on a live packager.
  const produced = (sequence: number, segmentSeconds: number) =>
    sequence <= newestLiveSequence({ epochMs: liveEpochMs, nowMs: now(), segmentSeconds })
  const liveDash = async (name: string): Promise<Response> => {
    const vod = await vodMpd().catch(() => undefined)
    const segment = vod && liveDashSegment(vod, name)
    if (!segment || !produced(segment.number, vod.segmentSeconds))
      return new Response('not found', { status: 404 })
    let timescale = timescales.get(segment.initPath)
    if (!timescale) {
      timescale = read(segment.initPath.split('/')).then(trackTimescale)
      timescales.set(segment.initPath, timescale)
    }
    const media = await read(segment.vodPath.split('/')).catch(() => undefined)
    if (!media) return new Response('not found', { status: 404 })
    const body = shiftSegmentTime(media, segment.shiftSeconds, await timescale)
    return sized(body, { 'content-type': TYPES.m4s ?? '' })
  }

  return new Hono()
    .get('/vod/:video/*', (c) => file(pathNames(c.req.url)?.slice(2) ?? []))
    .get('/live/:video/manifest.mpd', async (c) => {
      const vod = await vodMpd().catch(() => undefined)
      if (!vod) return c.text('not found', 404)
      const body = liveMpd(vod, {
        epochMs: liveEpochMs,
        nowMs: now(),
        windowSeconds: liveWindow * vod.segmentSeconds,
      })
      return sized(body, { 'content-type': TYPES.mpd ?? '', 'cache-control': 'no-store' })
    })
    .get('/live/:video/:rendition/:file', async (c) => {
      const { rendition, file: name } = c.req.param()
      if (name.startsWith('live-')) return liveDash(`${rendition}/${name}`)
      const sequence = liveSequence(name)
      if (name === 'index.m3u8' || sequence !== undefined) {
        const vod = await vodPlaylist(rendition).catch(() => undefined)
        if (!vod) return c.text('not found', 404)
        const segmentSeconds = Number(/TARGETDURATION:(\d+)/.exec(vod.header.join('\n'))?.[1] ?? 2)
        if (sequence !== undefined) {
          if (!produced(sequence, segmentSeconds)) return c.text('not found', 404)
          const uri = vod.segments[liveSegmentIndex(name, vod.segments.length) ?? 0]?.uri ?? ''
          return file([rendition, ...uri.split('/')])
        }
        const body = livePlaylist(vod, {
          epochMs: liveEpochMs,
          nowMs: now(),
          segmentSeconds,
          windowSize: liveWindow,
        })
        return sized(body, {
          'content-type': TYPES.m3u8 ?? '',
          'cache-control': 'no-store',
        })
      }
      return file([rendition, name])
    })
    .get('/live/:video/:file', (c) => file([c.req.param('file')]))
    .all('*', (c) => c.text('not found', 404))
}
