import { MAX_REJECTED_TOKENS, TokenRejectedError } from '@proj/token-refresh'
import Hls, { type LoaderContext, type LoaderResponse } from 'hls.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useTokenCdn } from '../test/token-cdn.ts'
import { createTokenRefresh, type HlsTokenRefresh } from './create-token-refresh.ts'

const env = useTokenCdn()
let refresh: HlsTokenRefresh

beforeEach(async () => {
  refresh = await createTokenRefresh({ ...env.options(), Hls })
})
afterEach(() => refresh.destroy())

/**
 * One attempt at `fragmentUrl` through the package's loader, and the error response hls.js's
 * fragment loader builds from it: `{ url: frag.url, data: undefined, ...response }` (hls.js 1.7,
 * FragmentLoader.load; the key loader does the same with the key's URI). hls.js retries fragments
 * through its error controller, so the loader itself is given no retries.
 */
const fragmentAttempt = (fragmentUrl: string) => {
  const Loader = refresh.hlsConfig.loader
  const policy = refresh.hlsConfig.fragLoadPolicy?.default
  if (!Loader || !policy) throw new Error('no loader or fragment policy')
  return new Promise<LoaderResponse | undefined>((resolve) => {
    new Loader({ ...Hls.DefaultConfig, ...refresh.hlsConfig }).load(
      { url: fragmentUrl, responseType: 'arraybuffer' } as LoaderContext,
      {
        loadPolicy: { ...policy, errorRetry: null, timeoutRetry: null },
        timeout: 5000,
        maxRetry: 0,
        retryDelay: 0,
        maxRetryDelay: 0,
      },
      {
        onSuccess: () => resolve(undefined),
        // `data: undefined` left out: LoaderResponse types it as present
        onError: (response) => resolve({ url: fragmentUrl, ...response }),
        onTimeout: () => resolve(undefined),
      },
    )
  })
}

describe('tokenLoader: a refused request names the URL it was sent with', () => {
  it("not the playlist's: the error of a fragment listed under an older pair carries the current one", async () => {
    const fragment = new URL('v0/seg_000.ts', refresh.url).href // listed by a tok0001 playlist
    await env.time.advance(14_000) // refreshed: requests now leave with tok0002
    env.cdn.rejectAll()
    const response = await fragmentAttempt(fragment)
    expect(response?.code).toBe(403)
    expect(env.cdn.hits.map((hit) => hit.token)).toEqual(['tok0002plain'])
    expect(response?.url).toContain('/tok0002plain/')
  })

  it("so hls.js's fragment retries count every refused token and give up after MAX_REJECTED_TOKENS, not maxNumRetry", async () => {
    const retryConfig = refresh.hlsConfig.fragLoadPolicy?.default.errorRetry
    const shouldRetry = retryConfig?.shouldRetry
    if (!retryConfig || !shouldRetry) throw new Error('no fragment retry policy')
    const errors: unknown[] = []
    refresh.refresher.addEventListener('error', (event) =>
      errors.push((event as CustomEvent<unknown>).detail),
    )
    env.cdn.rejectAll()
    const fragment = new URL('v0/seg_000.ts', refresh.url).href
    // hls.js's loop for a fragment with no alternate rendition: retried while the policy says
    // so, and (whatever it says) up to maxNumRetry times
    let attempts = 0
    for (let count = 0; count <= retryConfig.maxNumRetry; count++) {
      attempts++
      const response = await fragmentAttempt(fragment)
      if (!shouldRetry(retryConfig, count, false, response, false)) break
      await refresh.refresher.refresh().catch(() => undefined) // the recovery refresh it started
    }
    expect(retryConfig.maxNumRetry).toBeGreaterThan(MAX_REJECTED_TOKENS)
    expect(attempts).toBe(MAX_REJECTED_TOKENS)
    expect(new Set(env.cdn.hits.map((hit) => hit.token)).size).toBe(MAX_REJECTED_TOKENS)
    expect(refresh.refresher.rejected).toBe(true)
    expect(errors).toEqual([expect.any(TokenRejectedError)])
  })
})
