import { TOKEN_PAIR_PATTERN } from '@proj/signing/url'
import type { TokenRecord } from './types.ts'

/** Where a record says its video lives: both CDN hosts and the path before the pair. */
interface Scope {
  hosts: string[]
  prefix: string
}

const scopeOf = (url: string): Scope & { origin: string } => {
  const parsed = new URL(url)
  const index = parsed.pathname.search(TOKEN_PAIR_PATTERN)
  return { hosts: [parsed.host], prefix: parsed.pathname.slice(0, index), origin: parsed.origin }
}

/**
 * Builds the function that moves any URL of `record`'s video onto the record's current pair and
 * host, or returns `undefined` for a URL that is not this video's. Any pair is replaced, not only the one the player started with: URLs that the player
 * resolved against a playlist loaded under an older token are rewritten too. URLs of other
 * hosts or other videos are not touched (several players may share a page).
 *
 * @example
 * ```ts
 * const rewrite = urlRewriter(record, false)
 * rewrite('https://cdn.example.com/videos/1_demo/OLDtoken/1767225600/v0/seg_001.ts')
 * // 'https://cdn.example.com/videos/1_demo/<record.token>/<record.expires>/v0/seg_001.ts'
 * rewrite('https://other.example.com/a.ts') // undefined
 * ```
 */
export function urlRewriter(
  record: TokenRecord,
  ipBound: boolean,
): (url: string) => string | undefined {
  const plain = scopeOf(record.url)
  const bound = scopeOf(record.url_ip)
  const target = ipBound ? bound : plain
  const hosts = [...plain.hosts, ...bound.hosts]
  const pair = `${ipBound ? record.token_ip : record.token}/${record.expires}`
  return (url) => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return undefined
    }
    const path = parsed.pathname
    const index = path.search(TOKEN_PAIR_PATTERN)
    if (index < 0 || !hosts.includes(parsed.host) || path.slice(0, index) !== target.prefix)
      return undefined
    return target.origin + path.replace(TOKEN_PAIR_PATTERN, pair) + parsed.search + parsed.hash
  }
}
