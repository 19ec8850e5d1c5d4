import { join } from 'node:path'

/**
 * The committed test media (`media/vod`: `master.m3u8`, `v0/` clear, `v1/` AES-128, and the DASH
 * rendition `manifest.mpd` with `dash/`), as a
 * directory path: what `proj-cdn-emulator` serves without `--media`. A constant, not an export
 * of the folder: a subpath ending in `/` is deprecated in `exports` (Node's DEP0155).
 *
 * @example
 * ```ts
 * createOrigin({ mediaDir: VOD_MEDIA_DIR })
 * ```
 */
export const VOD_MEDIA_DIR = join(import.meta.dirname, '..', 'media', 'vod')
