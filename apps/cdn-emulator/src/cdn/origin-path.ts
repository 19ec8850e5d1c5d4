/**
 * The hop from the CDN to the origin: the path the token was checked on, written so that the
 * origin reads exactly those segments back.
 *
 * The CDN matches the decoded URI (nginx's `$uri`), so a checked segment may hold any character:
 * a tab, a `\`, `%2e%2e`. Put back into a URL as is, the WHATWG parser behind `new Request()`
 * strips tabs and line breaks, reads `\` as `/` and `%2e%2e` as `..`, and resolves the result: a
 * token for one video read another video's files (`.%09./.%09./live/…`). Each segment is therefore
 * percent-encoded, and parsing an encoded path changes nothing.
 */

/**
 * The origin request path for checked, decoded segments: each percent-encoded
 * (`encodeURIComponent`), joined with `/`. `new URL` keeps it as it is; decoding each segment once
 * (what the origin does) gives back `segments`.
 *
 * @example
 * ```ts
 * originPath(['vod', '12345_demo', 'v0', 'seg_000.ts']) // '/vod/12345_demo/v0/seg_000.ts'
 * originPath(['vod', '12345_demo', '..\\..\\live'])     // '/vod/12345_demo/..%5C..%5Clive'
 * originPath(['vod', '12345_demo', '%2e%2e'])          // '/vod/12345_demo/%252e%252e'
 * ```
 */
export function originPath(segments: readonly string[]): string {
  return `/${segments.map(encodeURIComponent).join('/')}`
}
