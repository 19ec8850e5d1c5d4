import { readFile } from 'node:fs/promises'
import { join, normalize } from 'node:path'
import { Hono } from 'hono'
import { livePlaylist, liveSegmentIndex, parseVodPlaylist } from './live-playlist.ts'

// A rendition is one folder of the media directory: never a path (`..`, `/`, `.`).
const RENDITION = /^[A-Za-z0-9_-]+$/

const TYPES: Record<string, string> = {
  m3u8: 'application/vnd.apple.mpegurl',
  ts: 'video/mp2t',
  bin: 'application/octet-stream',
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
  const root = normalize(mediaDir)
  const file = async (path: string): Promise<Response> => {
    const full = normalize(join(root, path))
    // `..` never leaves the media directory
    if (!full.startsWith(`${root}/`)) return new Response('not found', { status: 404 })
    try {
      const body = await readFile(full)
      const type = TYPES[full.split('.').pop() ?? ''] ?? 'application/octet-stream'
      return new Response(body, { headers: { 'content-type': type } })
    } catch {
      return new Response('not found', { status: 404 })
    }
  }
  // One entry per rendition folder that exists: names are checked first, failures dropped.
  const playlists = new Map<string, Promise<ReturnType<typeof parseVodPlaylist>>>()
  const vodPlaylist = (rendition: string) => {
    if (!RENDITION.test(rendition)) return Promise.reject(new Error('not a rendition'))
    let playlist = playlists.get(rendition)
    if (!playlist) {
      playlist = readFile(join(root, rendition, 'index.m3u8'), 'utf8').then(parseVodPlaylist)
      playlists.set(rendition, playlist)
      playlist.catch(() => playlists.delete(rendition))
    }
    return playlist
  }

  return new Hono()
    .get('/vod/:video/*', (c) => file(c.req.path.split('/').slice(3).join('/')))
    .get('/live/:video/:rendition/:file', async (c) => {
      const { rendition, file: name } = c.req.param()
      if (name === 'index.m3u8' || liveSegmentIndex(name, 1) !== undefined) {
        const vod = await vodPlaylist(rendition).catch(() => undefined)
        if (!vod) return c.text('not found', 404)
        if (name !== 'index.m3u8') {
          const index = liveSegmentIndex(name, vod.segments.length) ?? 0
          return file(`${rendition}/${vod.segments[index]?.uri}`)
        }
        const segmentSeconds = Number(/TARGETDURATION:(\d+)/.exec(vod.header.join('\n'))?.[1] ?? 2)
        const body = livePlaylist(vod, {
          epochMs: liveEpochMs,
          nowMs: now(),
          segmentSeconds,
          windowSize: liveWindow,
        })
        return c.body(body, 200, { 'content-type': TYPES.m3u8 ?? '', 'cache-control': 'no-store' })
      }
      return file(`${rendition}/${name}`)
    })
    .get('/live/:video/:file', (c) => file(c.req.param('file')))
    .all('*', (c) => c.text('not found', 404))
}
