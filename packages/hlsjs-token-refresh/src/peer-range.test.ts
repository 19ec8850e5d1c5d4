// The peer range `hls.js ^1.7.0` is true: the loader and the load policies work with the lowest
// admitted hls.js (1.7.0, installed beside the current one as the npm alias `hls.js-lowest`) and
// with the current one. Each release's own loader class (XhrLoader, which runs the retries and
// asks the policy's `shouldRetry`), its `DefaultConfig` policies, and a real Hls instance that
// takes the config and loads a manifest through the wrapped loader, against a small
// token-checking CDN. Written against tokenLoader/recoveringPolicies, the package's lower layer.
import { TokenRefresher } from '@proj/token-refresh'
import HlsCurrent, { type HlsConfig, type LoaderCallbacks, type LoaderContext } from 'hls.js'
import HlsLowest from 'hls.js-lowest'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useTokenCdn } from '../test/token-cdn.ts'
import { recoveringPolicies } from './retry-policy.ts'
import { tokenLoader } from './token-loader.ts'

type HlsClass = typeof HlsCurrent
const RELEASES = [
  { name: 'current', Hls: HlsCurrent, version: /^1\.\d+\.\d+$/ },
  { name: 'lowest admitted', Hls: HlsLowest as unknown as HlsClass, version: /^1\.7\.0$/ },
]

const env = useTokenCdn()
let refresher: TokenRefresher

beforeEach(async () => {
  refresher = await TokenRefresher.create(env.options())
})
afterEach(() => refresher.destroy())

const hits = () => env.cdn.hits.map((hit) => `${hit.token} ${hit.path} ${hit.status}`)

describe.each(RELEASES)('hls.js $name', ({ Hls, version }) => {
  /** The package's config for this release: its loader wrapped, its policies made recovering. */
  const config = (): Partial<HlsConfig> => ({
    loader: tokenLoader(refresher, Hls.DefaultConfig.loader),
    ...recoveringPolicies(refresher, Hls.DefaultConfig),
  })

  /** One request through this release's own loader, with its fragment policy (fast retries). */
  const load = (url: string) => {
    const own = config()
    const Loader = own.loader
    const base = own.fragLoadPolicy?.default
    if (!Loader || !base?.errorRetry) throw new Error('incomplete config')
    const loader = new Loader({ ...Hls.DefaultConfig, ...own })
    const errorRetry = { ...base.errorRetry, retryDelayMs: 5, maxRetryDelayMs: 5 }
    return new Promise<number>((resolve) => {
      const callbacks: LoaderCallbacks<LoaderContext> = {
        onSuccess: () => resolve(200),
        onError: (error) => resolve(error.code),
        onTimeout: () => resolve(-1),
      }
      loader.load(
        { url, responseType: 'arraybuffer' } as LoaderContext,
        {
          loadPolicy: { ...base, errorRetry },
          timeout: 5000,
          maxRetry: 0,
          retryDelay: 0,
          maxRetryDelay: 0,
        },
        callbacks,
      )
    })
  }

  it('is the release it claims, with the config fields the package reads', () => {
    expect(Hls.version).toMatch(version)
    expect(Hls.DefaultConfig.loader.prototype).toHaveProperty('loadInternal')
    for (const name of [
      'manifestLoadPolicy',
      'playlistLoadPolicy',
      'fragLoadPolicy',
      'keyLoadPolicy',
    ] as const)
      expect(Hls.DefaultConfig[name].default.errorRetry).toMatchObject({
        maxNumRetry: expect.any(Number),
      })
  })

  it('its loader sends every attempt on the current pair and its retries recover a 403', async () => {
    const segment = new URL('v0/seg_000.ts', refresher.url).href
    await env.time.advance(14_000)
    expect(await load(segment)).toBe(200) // rewritten onto the pair of the refresh
    env.cdn.failOnce('seg_001.ts', 403)
    expect(await load(new URL('v0/seg_001.ts', refresher.url).href)).toBe(200)
    expect(hits()).toEqual([
      'tok0002plain v0/seg_000.ts 200',
      'tok0002plain v0/seg_001.ts 403',
      'tok0003plain v0/seg_001.ts 200',
    ])
  })

  it('stops retrying when the CDN refuses every token: a bounded number of requests', async () => {
    env.cdn.rejectAll()
    expect(await load(refresher.url)).toBe(403)
    expect(env.cdn.hits.length).toBeLessThanOrEqual(1 + 2)
  })

  it('a real Hls instance takes the config and loads the manifest through the loader', async () => {
    await env.time.advance(14_000)
    // the manifest only: no playlist or fragment left in flight when the test ends
    const hls = new Hls({ ...config(), autoStartLoad: false })
    try {
      const loaded = new Promise<string>((resolve, reject) => {
        hls.on(Hls.Events.MANIFEST_LOADED, (_, data) => resolve(data.url))
        hls.on(Hls.Events.ERROR, (_, data) => {
          if (data.details === Hls.ErrorDetails.MANIFEST_LOAD_ERROR) reject(new Error(data.details))
        })
      })
      hls.loadSource(refresher.url.replace('tok0002plain', 'tok0001plain'))
      await loaded
      expect(hits()[0]).toBe('tok0002plain master.m3u8 200')
    } finally {
      hls.destroy()
    }
  })
})
