import type { TokenRefresher } from '@proj/token-refresh'
import type shaka from 'shaka-player'

/**
 * A Shaka request filter that moves every URI of a request (manifest, media playlists,
 * segments, init segments, AES keys) onto the current `{token}/{expires}` pair and host. Shaka
 * runs request filters again on every retry attempt and waits for a returned promise, so each
 * attempt leaves with the pair current at that moment, after a due refresh (bounded by
 * `maxWaitMs`: the refresher's `prepare` never rejects). With several CDNs, the URIs go to the
 * active CDN with its own token, and an attempt without first bytes within `cdnTimeoutMs` times
 * out (its `connectionTimeout`) so that `cdnFailover` can move it.
 *
 * @example
 * ```ts
 * player.getNetworkingEngine()?.registerRequestFilter(tokenRequestFilter(refresher))
 * ```
 */
export function tokenRequestFilter(refresher: TokenRefresher): shaka.extern.RequestFilter {
  return async (_type, request) => {
    request.uris = await Promise.all(request.uris.map((uri) => refresher.prepare(uri)))
    // several CDNs: a CDN that sends nothing is left after cdnTimeoutMs, not Shaka's 10 s; only
    // for this video's requests (a DRM licence server keeps its own patience)
    const timeout = refresher.cdnTimeoutMs
    const parameters = request.retryParameters
    if (timeout && request.uris.some((uri) => refresher.owns(uri)))
      parameters.connectionTimeout = Math.min(parameters.connectionTimeout || timeout, timeout)
  }
}
