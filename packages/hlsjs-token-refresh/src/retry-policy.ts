import { isTokenRefusal, MAX_RECOVERY_RETRIES, type TokenRefresher } from '@proj/token-refresh'
import type { HlsConfig, LoadPolicy, RetryConfig } from 'hls.js'

type PolicyName = 'manifestLoadPolicy' | 'playlistLoadPolicy' | 'fragLoadPolicy' | 'keyLoadPolicy'
const POLICIES: PolicyName[] = [
  'manifestLoadPolicy',
  'playlistLoadPolicy',
  'fragLoadPolicy',
  'keyLoadPolicy',
]
const FALLBACK: RetryConfig = { maxNumRetry: 2, retryDelayMs: 1000, maxRetryDelayMs: 8000 }

/**
 * The load policies of `config` (hls.js's: `Hls.DefaultConfig`, or `{ ...Hls.DefaultConfig,
 * ...yours }`) with one change: a 403 or 410 for a URL of this video is retried (hls.js never
 * retries 4xx by default) when a refresh can fix it, i.e. when the URL carries an older pair or
 * its token has not yet triggered a refresh. The retry then leaves with the new pair (see
 * `tokenLoader`), so no fatal error is raised while a refresh can still save playback. At most
 * `max(maxNumRetry, MAX_RECOVERY_RETRIES)` such retries per request keep a CDN that rejects every
 * token from looping.
 *
 * @example
 * ```ts
 * const hls = new Hls({
 *   loader: tokenLoader(refresher, Hls.DefaultConfig.loader),
 *   ...recoveringPolicies(refresher, Hls.DefaultConfig),
 * })
 * ```
 * @throws TypeError when `config` lacks one of the four policies.
 */
export function recoveringPolicies(
  refresher: TokenRefresher,
  config: Pick<HlsConfig, PolicyName>,
): Pick<HlsConfig, PolicyName> {
  const shouldRetry: RetryConfig['shouldRetry'] = (
    retryConfig,
    count,
    _timeout,
    response,
    retry,
  ) => {
    const code = response?.code
    const budget = Math.max(retryConfig?.maxNumRetry ?? 0, MAX_RECOVERY_RETRIES)
    if (!isTokenRefusal(code) || !response?.url) return retry
    // every refusal goes to the refresher, past the budget too: when one resource is refused
    // with each fresh token, the last token's refusal is what tells it the CDN refuses them all
    const recovers = refresher.recover(response.url, code)
    return count < budget ? recovers : retry
  }
  const policies = {} as Pick<HlsConfig, PolicyName>
  for (const name of POLICIES) {
    const policy: LoadPolicy | undefined = config?.[name]
    if (!policy?.default) throw new TypeError(`recoveringPolicies: config.${name} is missing`)
    policies[name] = {
      default: {
        ...policy.default,
        errorRetry: { ...(policy.default.errorRetry ?? FALLBACK), shouldRetry },
      },
    }
  }
  return policies
}
