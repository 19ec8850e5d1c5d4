import { useScriptTagBuild, withTinyCdn } from '@proj/token-refresh/testing'
import type videojsModule from 'video.js'
import { build } from 'vite'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type * as api from './iife.ts'

// The script-tag build as a page gets it: video.js's own UMD file first (it sets `videojs` on the
// window), then the IIFE, both evaluated as classic scripts in the happy-dom window. The IIFE is
// built here, into a temporary folder, from the same config as `pnpm build`.
const page = useScriptTagBuild<{ videojs: typeof videojsModule; VideojsTokenRefresh: typeof api }>(
  { beforeAll, afterAll, build },
  {
    from: import.meta.url,
    output: 'videojs-token-refresh.min.js',
    player: 'video.js/dist/video.min.js',
    // happy-dom has no MediaSource: no tech takes the source
    afterPlayer: () => page.videojs.log.level('off'),
  },
)

it('exposes VideojsTokenRefresh and registers the plugin on the videojs global when loaded', () => {
  const { VideojsTokenRefresh, videojs } = page
  expect(Object.keys(VideojsTokenRefresh)).toEqual(
    expect.arrayContaining(['prepareTokenRefresh', 'registerTokenRefreshWorker', 'tokenRefreshOf']),
  )
  expect(videojs.getPlugin('tokenRefresh')).toBe(VideojsTokenRefresh.TokenRefreshPlugin)
})

it('keeps a player on fresh tokens through the global API and the real VHS xhr', async () => {
  const { VideojsTokenRefresh, videojs } = page
  await withTinyCdn(async ({ time, cdn, options }) => {
    const element = document.createElement('video')
    document.body.append(element)
    const player = videojs(element, await VideojsTokenRefresh.prepareTokenRefresh(options))
    const refresher = await VideojsTokenRefresh.tokenRefreshOf(player)?.ready
    const first = player.currentSrc()
    expect(first).toContain('/tok0001plain/')
    // VHS's own xhr, from the global video.js, hooked through the global API
    const vhsXhr = (videojs as unknown as { Vhs: { xhr: api.VhsXhr } }).Vhs.xhr
    const hooked = VideojsTokenRefresh.installVhsHooks(vhsXhr, () => refresher)
    await time.advance(14_000) // past the lead time: the second token is in
    await new Promise<void>((resolve) =>
      hooked.xhr({ uri: first, responseType: 'text' }, () => resolve()),
    )
    expect(cdn.hits.map((hit) => `${hit.token} ${hit.status}`)).toEqual(['tok0002plain 200'])
    hooked.remove()
    player.dispose()
  })
})
