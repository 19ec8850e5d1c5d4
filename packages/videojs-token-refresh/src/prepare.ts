import { nextRecord, type TokenContext, type TokenRecord } from '@proj/token-refresh'
import { HLS_TYPE, type TokenRefreshPluginOptions, techOptions } from './plugin.ts'
import { registerTokenRefresh } from './register.ts'

/** Player options for `videojs()`: the source, the tech options for the mode, the plugin first. */
export interface TokenRefreshPlayerOptions {
  sources: { src: string; type: string }[]
  html5: ReturnType<typeof techOptions>
  plugins: { tokenRefresh: TokenRefreshPluginOptions }
}

/**
 * Fetches the initial token before the player exists (spec 4.15) and returns the options to
 * create it with: the tokenised source, the VHS tech options and the `tokenRefresh` plugin
 * first among the plugins (registered if it was not). The plugin reuses the fetched record
 * instead of fetching it again.
 *
 * @example
 * ```ts
 * import videojs from 'video.js'
 * import { fetchToken, prepareTokenRefresh } from '@proj/videojs-token-refresh'
 *
 * const options = await prepareTokenRefresh({
 *   getToken: () => fetchToken('https://tokens.example.com/token?video=demo&type=vod&expire=300'),
 *   refreshLeadSeconds: 60,
 * })
 * const player = videojs('player', { ...options, fluid: true })
 * ```
 */
export async function prepareTokenRefresh(
  tokenRefresh: TokenRefreshPluginOptions,
): Promise<TokenRefreshPlayerOptions> {
  registerTokenRefresh()
  // the playback's first token as the refresher fetches its own: a stream id of its own, bounded
  // by tokenTimeoutMs (the page's getToken called through a function that takes the context:
  // whether it ignores it is for the refresher to say, once)
  let initial: TokenRecord | undefined = await nextRecord({
    ...tokenRefresh,
    getToken: (context) => tokenRefresh.getToken(context),
  })
  const src = tokenRefresh.ipBound ? initial.url_ip : initial.url
  const next = (context: TokenContext) => {
    const record = initial
    initial = undefined
    return record ? Promise.resolve(record) : tokenRefresh.getToken(context)
  }
  // as the page's getToken takes the context or not: the refresher warns about one that does not
  const getToken = tokenRefresh.getToken.length === 0 ? () => next({}) : next
  return {
    sources: [{ src, type: HLS_TYPE }],
    html5: techOptions({}, tokenRefresh.mode),
    plugins: { tokenRefresh: { ...tokenRefresh, getToken } },
  }
}
