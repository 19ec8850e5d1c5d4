import { videoScopeOf } from '@proj/signing/url'
import type { TokenRecord } from './types.ts'

/** A refresher as its peers see it: something that can take a newer record of its video. */
export interface TokenPeer {
  receive(record: TokenRecord): void
}

/**
 * Where the refreshers of one page find each other, so players of the same video share one
 * refresh per cycle: a record fetched by one is offered to the others.
 */
export interface TokenPeers {
  /** Adds `peer` to the group of `record`'s video; returns the function that removes it. */
  join(record: TokenRecord, peer: TokenPeer): () => void
  /** Offers `record` to every other peer of its video. */
  share(record: TokenRecord, from: TokenPeer): void
}

/** The video a record is for: where both URLs belong (same video, same CDN hosts). */
const videoOf = ({ url, url_ip }: TokenRecord): string => {
  const [plain, bound] = [videoScopeOf(url), videoScopeOf(url_ip)]
  return `${plain?.origin}${plain?.directory} ${bound?.origin}${bound?.directory}`
}

/**
 * Creates a registry of refreshers. Each page gets one by default ({@link pagePeers}); create
 * your own to keep groups apart (tests, several independent viewers on one page).
 *
 * @example
 * ```ts
 * const peers = createTokenPeers()
 * const a = await TokenRefresher.create({ ...options, peers })
 * const b = await TokenRefresher.create({ ...options, peers }) // refreshes of a reach b
 * ```
 */
export function createTokenPeers(): TokenPeers {
  const groups = new Map<string, Set<TokenPeer>>()
  return {
    join(record, peer) {
      const video = videoOf(record)
      const group = groups.get(video) ?? new Set()
      groups.set(video, group.add(peer))
      return () => {
        group.delete(peer)
        if (group.size === 0) groups.delete(video)
      }
    },
    share(record, from) {
      for (const peer of groups.get(videoOf(record)) ?? []) if (peer !== from) peer.receive(record)
    },
  }
}

/**
 * The page-wide registry every refresher joins unless given `peers`.
 *
 * @example
 * ```ts
 * await TokenRefresher.create({ ...options, peers: pagePeers }) // the default
 * ```
 */
export const pagePeers: TokenPeers = createTokenPeers()
