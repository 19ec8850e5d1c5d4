import { isTokenRejection, MAX_RECOVERY_RETRIES, type TokenRefresher } from '@proj/token-refresh'
import type { HlsConfig, LoadPolicy, RetryConfig } from 'hls.js'
import Hls from 'hls.js'

type PolicyName = 'manifestLoadPolicy' | 'playlistLoadPolicy' | 'fragLoadPolicy' | 'keyLoadPolicy'
const POLICIES: PolicyName[] = [
  'manifestLoadPolicy',
  'playlistLoadPolicy',
  'fragLoadPolicy',
  'keyLoadPolicy',
]
const FALLBACK: RetryConfig = { maxNumRetry: 2, retryDelayMs: 1000, maxRetryDelayMs: 8000 }

/**
 * hls.js's load policies with one change: a 403 or 410 for a URL of this video is retried
 * (hls.js never retries 4xx by default) when a refresh can fix it, i.e. when the URL carries an
 * older pair or its token has not yet triggered a refresh. The retry then leaves with the new
 * pair (see `tokenLoader`), so no fatal error is raised while a refresh can still save playback.
 * At most `max(maxNumRetry, MAX_RECOVERY_RETRIES)` such retries per request keep a CDN that rejects every token
 * from looping.
 *
 * @example
 * ```ts
 * const hls = new Hls({ loader: tokenLoader(refresher), ...recoveringPolicies(refresher) })
 * ```
 */
export function recoveringPolicies(
  refresher: TokenRefresher,
  base: Partial<HlsConfig> = Hls.DefaultConfig,
): Pick<HlsConfig, PolicyName> {
  const shouldRetry: RetryConfig['shouldRetry'] = (config, count, _timeout, response, retry) => {
    const code = response?.code
    const budget = Math.max(config?.maxNumRetry ?? 0, MAX_RECOVERY_RETRIES)
    if (isTokenRejection(code) && response?.url && count < budget)
      return refresher.recover(response.url)
    return retry
  }
  const policies = {} as Pick<HlsConfig, PolicyName>
  for (const name of POLICIES) {
    const policy = (base[name] ?? Hls.DefaultConfig[name]) as LoadPolicy
    policies[name] = {
      default: {
        ...policy.default,
        errorRetry: { ...(policy.default.errorRetry ?? FALLBACK), shouldRetry },
      },
    }
  }
  return policies
}
