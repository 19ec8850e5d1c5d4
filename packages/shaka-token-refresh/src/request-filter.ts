import type { TokenRefresher } from '@proj/token-refresh'
import type shaka from 'shaka-player'
import { attemptOf } from './engine-attempts.ts'

/**
 * A Shaka request filter that moves every URI of a request (manifest, media playlists,
 * segments, init segments, AES keys) onto the current `{token}/{expires}` pair and host. Shaka
 * runs request filters again on every retry attempt and waits for a returned promise, so each
 * sending leaves with the pair current at that moment, after a due refresh (bounded by
 * `maxWaitMs`: it never rejects). A request made through `engineAttempts` is one of the
 * refresher's attempts: its sendings go to the CDN in use with that CDN's token and, with
 * several CDNs, time out after the attempt's first-byte bound (`connectionTimeout`; only the
 * video's requests: a DRM licence server keeps its own patience).
 *
 * @example
 * ```ts
 * player.getNetworkingEngine()?.registerRequestFilter(tokenRequestFilter(refresher))
 * ```
 */
export function tokenRequestFilter(refresher: TokenRefresher): shaka.extern.RequestFilter {
  return async (_type, request) => {
    const attempt = attemptOf.get(request)
    const [first = '', ...others] = request.uris
    const prepared = (uri: string) => refresher.prepare(uri)
    request.uris = await Promise.all([
      attempt ? attempt.prepare() : prepared(first),
      ...others.map(prepared),
    ])
    const timeout = attempt?.timeoutMs
    const parameters = request.retryParameters
    if (timeout)
      parameters.connectionTimeout = Math.min(parameters.connectionTimeout || timeout, timeout)
  }
}
