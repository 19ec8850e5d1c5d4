import { TOKEN_PAIR_PATTERN, type VideoScope, videoScopeOf } from '@proj/signing/url'
import type { TokenRecord } from './types.ts'

/** Where one host of a CDN serves the video (origin, host, directory) and the pair it carries. */
type Site = Partial<VideoScope> & { pair: string }

/** One CDN as the rewriter sees it: both hosts and the pair each carries. */
interface CdnSites {
  id: string
  plain: Site
  bound: Site
}

/** The id the CDN of a one-CDN record goes by (such a record names none). */
const ONLY_CDN = ''

/** Every CDN of `record`, preferred first: its `cdns`, or the record's own pair when it has none. */
const cdnsOf = (record: TokenRecord): CdnSites[] => {
  const cdns = record.cdns && record.cdns.length >= 2 ? record.cdns : [{ ...record, id: ONLY_CDN }]
  return cdns.map((cdn) => ({
    id: cdn.id,
    plain: { ...videoScopeOf(cdn.url), pair: `${cdn.token}/${cdn.expires}` },
    bound: { ...videoScopeOf(cdn.url_ip), pair: `${cdn.token_ip}/${cdn.expires}` },
  }))
}

/**
 * Knows every CDN of a record: which one a URL of the video is on, and how to move that URL onto
 * any of them with that CDN's own pair (what {@link urlRewriter} does for one).
 */
export interface CdnRewriter {
  /** The CDN ids, preferred first (`['']` for a record without `cdns`). */
  readonly ids: string[]
  /** The id of the CDN whose host `url` is on, when `url` is of this video; else `undefined`. */
  cdnOf(url: string): string | undefined
  /** `url` moved onto CDN `id` with its pair; `undefined` for URLs of other videos or hosts. */
  rewrite(url: string, id: string): string | undefined
}

/**
 * Builds the {@link CdnRewriter} of `record`: URLs of its video on any CDN's plain or IP-bound
 * host are recognised, and moved onto the target CDN's host (`url_ip`'s when `ipBound`) with
 * that CDN's token, never another's. Records without `cdns` have one CDN, id `''`.
 *
 * @example
 * ```ts
 * const cdns = cdnRewriter(record, false)
 * cdns.cdnOf('https://a.example.com/videos/1_demo/tok/1767225600/seg.ts') // 'a'
 * cdns.rewrite('https://a.example.com/videos/1_demo/tok/1767225600/seg.ts', 'b')
 * // 'https://b.example.com/videos/1_demo/<b's token>/<expires>/seg.ts'
 * ```
 */
export function cdnRewriter(record: TokenRecord, ipBound: boolean): CdnRewriter {
  const cdns = cdnsOf(record)
  /** The CDN and the rest of the path after the pair, for URLs of this video. */
  const locate = (url: string): { cdn: CdnSites; rest: string; tail: string } | undefined => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return undefined
    }
    const path = parsed.pathname
    const match = TOKEN_PAIR_PATTERN.exec(path)
    if (!match) return undefined
    const prefix = path.slice(0, match.index)
    const cdn = cdns.find(({ plain, bound }) =>
      [plain, bound].some((site) => site.host === parsed.host && site.directory === prefix),
    )
    if (!cdn) return undefined
    return {
      cdn,
      rest: path.slice(match.index + match[0].length),
      tail: parsed.search + parsed.hash,
    }
  }
  return {
    ids: cdns.map((cdn) => cdn.id),
    cdnOf: (url) => locate(url)?.cdn.id,
    rewrite(url, id) {
      const found = locate(url)
      const target = cdns.find((cdn) => cdn.id === id)
      if (!found || !target) return undefined
      const site = ipBound ? target.bound : target.plain
      return `${site.origin}${site.directory}${site.pair}${found.rest}${found.tail}`
    },
  }
}

/**
 * Builds the function that moves any URL of `record`'s video onto the record's current pair and
 * host, or returns `undefined` for a URL that is not this video's. Any pair is replaced, not only the one the player started with: URLs that the player
 * resolved against a playlist loaded under an older token are rewritten too. URLs of other
 * hosts or other videos are not touched (several players may share a page). With several CDNs
 * (`record.cdns`), URLs on any of their hosts move onto CDN `cdn` (default the preferred one).
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
  cdn?: string,
): (url: string) => string | undefined {
  const cdns = cdnRewriter(record, ipBound)
  const target = cdn ?? cdns.ids[0] ?? ONLY_CDN
  return (url) => cdns.rewrite(url, target)
}
