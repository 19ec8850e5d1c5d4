/**
 * The player side of the token contract (spec 4.15 point 4): finding and replacing the
 * `{token}/{expires}` pair in a URL path. Separate entry point (`@proj/signing/url`) so player
 * bundles never pull in MD5 code.
 *
 * The pair is two whole path segments: a token of at least 6 base64url characters, then a
 * timestamp of 10 or more digits. The spec says the timestamp begins with `1`, which stops
 * matching in May 2033 (Unix time 2000000000); any non-zero first digit is accepted here, a
 * superset that still matches every URL the spec describes.
 */

/** A `{token}/{expires}` pair as two whole path segments (no flags: safe to reuse). */
export const TOKEN_PAIR_PATTERN = /(?<=\/)([A-Za-z0-9_-]{6,})\/([1-9]\d{9,})(?=\/|$)/

/** A token pair found in a URL. */
export interface TokenPair {
  token: string
  /** Unix seconds. */
  expires: number
}

const splitPath = (url: string): [path: string, rest: string] => {
  // Only the path carries the pair: a query string or fragment is never rewritten.
  const end = url.search(/[?#]/)
  return end === -1 ? [url, ''] : [url.slice(0, end), url.slice(end)]
}

/**
 * Finds the `{token}/{expires}` pair in the path of a URL (absolute or relative).
 *
 * @returns the pair, or `undefined` when the path carries none.
 * @example
 * ```ts
 * findTokenPair('https://cdn.example.com/videos/1_demo/Ab3xYz9_-Q/1767225600/master.m3u8')
 * // { token: 'Ab3xYz9_-Q', expires: 1767225600 }
 * ```
 */
export function findTokenPair(url: string): TokenPair | undefined {
  const match = TOKEN_PAIR_PATTERN.exec(splitPath(url)[0])
  if (!match?.[1] || !match[2]) return undefined
  return { token: match[1], expires: Number(match[2]) }
}

/**
 * Whether the path of `url` carries a `{token}/{expires}` pair.
 *
 * @example
 * ```ts
 * hasTokenPair('/videos/1_demo/Ab3xYz9_-Q/1767225600/v0/seg_001.ts') // true
 * hasTokenPair('/videos/1_demo/master.m3u8')                      // false
 * ```
 */
export function hasTokenPair(url: string): boolean {
  return TOKEN_PAIR_PATTERN.test(splitPath(url)[0])
}

/**
 * Replaces the `{token}/{expires}` pair in the path of `url` with `pair`, whatever token the URL
 * carried before: URLs that a player resolved against a playlist loaded under an older token are
 * rewritten too. A URL without a pair is returned unchanged.
 *
 * @example
 * ```ts
 * replaceTokenPair('https://cdn.example.com/videos/1_demo/OLDtoken/1767225600/v0/index.m3u8',
 *   { token: 'NEWtoken', expires: 1767229200 })
 * // 'https://cdn.example.com/videos/1_demo/NEWtoken/1767229200/v0/index.m3u8'
 * ```
 */
export function replaceTokenPair(url: string, pair: TokenPair): string {
  const [path, rest] = splitPath(url)
  return path.replace(TOKEN_PAIR_PATTERN, () => `${pair.token}/${pair.expires}`) + rest
}

/** Where a URL's video lives: the host and the path before its `{token}/{expires}` pair. */
export interface VideoScope {
  /** `scheme://host[:port]`. */
  origin: string
  /** `host[:port]`. */
  host: string
  /** The path before the pair (`/videos/12345_demo/`): the video's directory on that host. */
  directory: string
}

/**
 * Which video an absolute URL belongs to, as far as the URL tells: its host and the directory
 * before the `{token}/{expires}` pair (every file of a video shares both, whatever pair it
 * carries). `undefined` for a URL without a pair or that is not absolute. The one answer to
 * "is this URL of that video?" for the player core, the service worker and the adapters.
 *
 * @example
 * ```ts
 * videoScopeOf('https://cdn.example.com/videos/1_demo/Ab3xYz9_-Q/1767225600/v0/seg_001.ts')
 * // { origin: 'https://cdn.example.com', host: 'cdn.example.com', directory: '/videos/1_demo/' }
 * ```
 */
export function videoScopeOf(url: string): VideoScope | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  const index = parsed.pathname.search(TOKEN_PAIR_PATTERN)
  if (index === -1) return undefined
  return { origin: parsed.origin, host: parsed.host, directory: parsed.pathname.slice(0, index) }
}
