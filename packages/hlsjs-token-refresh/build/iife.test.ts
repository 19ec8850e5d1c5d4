import { useScriptTagBuild, withTinyCdn } from '@proj/token-refresh/testing'
import type HlsClass from 'hls.js'
import { build } from 'vite'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type * as api from './iife.ts'

// The script-tag build as a page gets it: hls.js's own UMD file first (it sets `Hls` on the
// window), then the IIFE, both evaluated as classic scripts in the happy-dom window. The IIFE is
// built here, into a temporary folder, from the same config as `pnpm build`.
const page = useScriptTagBuild<{ Hls: typeof HlsClass; HlsTokenRefresh: typeof api }>(
  { beforeAll, afterAll, build },
  {
    from: import.meta.url,
    output: 'hlsjs-token-refresh.min.js',
    player: 'hls.js/dist/hls.min.js',
  },
)

it('exposes HlsTokenRefresh beside the Hls global', () => {
  expect(typeof page.Hls.isSupported).toBe('function')
  expect(Object.keys(page.HlsTokenRefresh)).toEqual(
    expect.arrayContaining(['createTokenRefresh', 'fetchToken', 'registerTokenRefreshWorker']),
  )
})

it('keeps the global Hls on fresh tokens through the global API', async () => {
  const { Hls, HlsTokenRefresh } = page
  await withTinyCdn(async ({ time, cdn, options }) => {
    const refresh = await HlsTokenRefresh.createTokenRefresh({ ...options, Hls })
    const first = refresh.url
    expect(first).toContain('/tok0001plain/')
    const hls = new Hls({ ...refresh.hlsConfig, autoStartLoad: false })
    refresh.attach(hls)
    const parsed = new Promise((resolve) => hls.once(Hls.Events.MANIFEST_PARSED, resolve))
    await time.advance(14_000) // past the lead time: the second token is in
    hls.loadSource(first)
    await parsed
    expect(hls.levels).toHaveLength(2)
    expect(cdn.hits.map((hit) => `${hit.token} ${hit.status}`)).toEqual(['tok0002plain 200'])
    hls.destroy()
    expect(time.pending).toBe(0) // the refresh stopped with the player
  })
})
