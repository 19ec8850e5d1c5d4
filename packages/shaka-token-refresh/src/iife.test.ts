import { useScriptTagBuild, withTinyCdn } from '@proj/token-refresh/testing'
import type shakaModule from 'shaka-player'
import { build } from 'vite'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type * as api from './index.ts'

// The script-tag build as a page gets it: Shaka's own compiled file first (it sets `shaka` on
// the window), then the IIFE, both evaluated as classic scripts in the happy-dom window. The IIFE
// is built here, into a temporary folder, from the same config as `pnpm build`.
const page = useScriptTagBuild<{ shaka: typeof shakaModule; ShakaTokenRefresh: typeof api }>(
  { beforeAll, afterAll, build },
  {
    from: import.meta.url,
    output: 'shaka-token-refresh.min.js',
    player: 'shaka-player/dist/shaka-player.compiled.js',
    afterPlayer: () => page.shaka.polyfill.installAll(),
  },
)

it('exposes ShakaTokenRefresh beside the shaka global', () => {
  expect(typeof page.shaka.Player).toBe('function')
  expect(Object.keys(page.ShakaTokenRefresh)).toEqual(
    expect.arrayContaining(['createTokenRefresh', 'fetchToken', 'tokenRequestFilter']),
  )
})

it("keeps the global Shaka's requests on fresh tokens through the global API", async () => {
  const { shaka, ShakaTokenRefresh } = page
  await withTinyCdn(async ({ time, cdn, options }) => {
    const player = new shaka.Player()
    try {
      const refresh = await ShakaTokenRefresh.createTokenRefresh(options)
      const first = refresh.url
      expect(first).toContain('/tok0001plain/')
      refresh.attach(player)
      await time.advance(14_000) // past the lead time: the second token is in
      const { NetworkingEngine } = shaka.net
      const request = NetworkingEngine.makeRequest(
        [first],
        NetworkingEngine.defaultRetryParameters(),
      )
      const response = await player
        .getNetworkingEngine()
        ?.request(NetworkingEngine.RequestType.MANIFEST, request).promise
      expect(response?.status).toBe(200)
      expect(cdn.hits.map((hit) => `${hit.token} ${hit.status}`)).toEqual(['tok0002plain 200'])
    } finally {
      await player.destroy()
    }
  })
})
