/**
 * Maps one URI of a playlist to what the rewritten playlist says instead (return it unchanged to
 * keep it).
 */
export type UriMapper = (uri: string) => string

// A `URI="…"` attribute of a tag, not SERVER-URI or any other name ending in URI.
const URI_ATTRIBUTE = /([:,]\s*URI=")([^"\r\n]*)(")/g

/**
 * Rewrites every URI of an HLS playlist (RFC 8216bis): the URI lines (variant streams, media
 * segments) and the `URI="…"` attribute of every tag (`EXT-X-KEY`, `EXT-X-MAP`, `EXT-X-MEDIA`,
 * `EXT-X-I-FRAME-STREAM-INF`, `EXT-X-SESSION-KEY`, `EXT-X-SESSION-DATA`, and LL-HLS's
 * `EXT-X-PART`, `EXT-X-PRELOAD-HINT`, `EXT-X-RENDITION-REPORT`). Comments, blank lines and every
 * other byte are kept; line ends become `\n`.
 *
 * @example
 * ```ts
 * rewritePlaylist('#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="key.bin"\nseg_0.ts\n', (uri) => `x/${uri}`)
 * // '#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="x/key.bin"\nx/seg_0.ts\n'
 * ```
 */
export function rewritePlaylist(text: string, map: UriMapper): string {
  return text
    .split(/\r?\n/)
    .map((line) => {
      if (line.startsWith('#EXT')) {
        const colon = line.indexOf(':')
        if (colon === -1 || !line.includes('URI="', colon)) return line
        return (
          line.slice(0, colon) +
          line.slice(colon).replace(URI_ATTRIBUTE, (_, open, uri, close) => open + map(uri) + close)
        )
      }
      if (line.startsWith('#')) return line
      const uri = line.trim()
      return uri === '' ? line : map(uri)
    })
    .join('\n')
}
