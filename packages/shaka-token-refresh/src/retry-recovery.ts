import { TOKEN_PAIR_PATTERN } from '@proj/signing/url'
import { isTokenRefusal, MAX_RECOVERY_RETRIES, type TokenRefresher } from '@proj/token-refresh'
import type shaka from 'shaka-player'

// shaka.util.Error.Code.BAD_HTTP_STATUS; its data is [uri, status, …]
const BAD_HTTP_STATUS = 1001

/** The `retry` event of Shaka's NetworkingEngine (a FakeEvent carrying the error). */
interface RetryEvent extends Event {
  error?: { code: number; data: unknown[] }
}

/** A resource whatever pair its URL carries: retries of one request share it. */
const resourceOf = (uri: string) => uri.replace(TOKEN_PAIR_PATTERN, '')

/** What {@link tokenRecovery} registers on a NetworkingEngine. */
export interface TokenRecovery {
  /** For the engine's `retry` event. */
  onRetry: (event: Event) => void
  /** A response filter: a success ends the resource's run of rejections. */
  onResponse: shaka.extern.ResponseFilter
}

/**
 * The 403/410 recovery on Shaka's NetworkingEngine. On a `retry` after a token rejection for a
 * URL of this video, the core's `recover` starts the one refresh per token (the next attempt's
 * request filter waits for it). A retry is cancelled, so Shaka reports the error instead of
 * sending requests that cannot succeed, when no refresh can help or when one resource has been
 * refused `MAX_RECOVERY_RETRIES` times in a row (a CDN that refuses every fresh token).
 *
 * @deprecated `engineAttempts(refresher, engine)` (what `createTokenRefresh` installs) recovers
 * refused tokens as one of each request's attempts; with it, this adds nothing.
 * @example
 * ```ts
 * const recovery = tokenRecovery(refresher)
 * engine.addEventListener('retry', recovery.onRetry)
 * engine.registerResponseFilter(recovery.onResponse)
 * ```
 */
export function tokenRecovery(refresher: TokenRefresher): TokenRecovery {
  const rejections = new Map<string, number>()
  return {
    onRetry(event) {
      const error = (event as RetryEvent).error
      // another CDN took the request (cdnFailover): no refresh, no count
      if (event.defaultPrevented || error?.code !== BAD_HTTP_STATUS) return
      const [uri, status] = error.data
      if (!isTokenRefusal(Number(status)) || typeof uri !== 'string') return
      const resource = resourceOf(uri)
      const count = (rejections.get(resource) ?? 0) + 1
      // a bounded record: entries end with a success or a give-up; this caps stragglers
      if (rejections.size > 256) rejections.clear()
      rejections.set(resource, count)
      // every refusal goes to the refresher, the last one too: when one resource is refused with
      // each fresh token, the third token's refusal is what tells it the CDN refuses them all
      const recovers = refresher.recover(uri, Number(status))
      if (count > MAX_RECOVERY_RETRIES || !recovers) {
        rejections.delete(resource)
        event.preventDefault()
      }
    },
    onResponse(_type, response) {
      rejections.delete(resourceOf(response.originalUri ?? response.uri))
    },
  }
}

type RetryConfig = { retryParameters?: Partial<shaka.extern.RetryParameters> }

/**
 * Shaka configuration that leaves room for the recovery: at least `1 + MAX_RECOVERY_RETRIES`
 * attempts for manifest, segment and key requests (Shaka's default is 2). Higher values of the
 * page are kept.
 *
 * @example
 * ```ts
 * player.configure(recoveringRetryParameters(player.getConfiguration()))
 * ```
 */
export function recoveringRetryParameters(config: {
  manifest: RetryConfig
  streaming: RetryConfig
  drm: RetryConfig
}) {
  const atLeast = (section: RetryConfig) => ({
    retryParameters: {
      maxAttempts: Math.max(section.retryParameters?.maxAttempts ?? 2, 1 + MAX_RECOVERY_RETRIES),
    },
  })
  return {
    manifest: atLeast(config.manifest),
    streaming: atLeast(config.streaming),
    drm: atLeast(config.drm),
  }
}
