import { useScriptTagBuild, withTinyCdn } from '@proj/token-refresh/testing'
import type * as dashjsModule from 'dashjs'
import { build } from 'vite'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type * as api from './index.ts'

// The script-tag build as a page gets it: dash.js's own UMD file first (what `dashjs`'s `script`
// export names; it sets the `dashjs` global), then the IIFE, both evaluated as classic scripts in
// the happy-dom window. The IIFE is built here, into a temporary folder, from the same config as
// `pnpm build`. dash.js plays nothing without MediaSource: the script-tag build playing in
// Chromium is e2e/tests/script-tag.spec.ts's.
const page = useScriptTagBuild<{ dashjs: typeof dashjsModule; DashjsTokenRefresh: typeof api }>(
  { beforeAll, afterAll, build },
  { from: import.meta.url, output: 'dashjs-token-refresh.min.js', player: 'dashjs' },
)

it('exposes DashjsTokenRefresh beside the dashjs global', () => {
  expect(typeof page.dashjs.MediaPlayer).toBe('function')
  expect(Object.keys(page.DashjsTokenRefresh)).toEqual(
    expect.arrayContaining(['createTokenRefresh', 'fetchToken', 'requestAttempts']),
  )
})

it('refreshes through the global API and attaches to the global dash.js', async () => {
  const { dashjs, DashjsTokenRefresh } = page
  await withTinyCdn(async ({ time, options }) => {
    const refresh = await DashjsTokenRefresh.createTokenRefresh({ ...options, dashjs })
    expect(refresh.url).toContain('/tok0001plain/')
    const player = dashjs.MediaPlayer().create()
    refresh.attach(player)
    expect(player.getSettings().streaming?.retryAttempts?.XLinkExpansion).toBe(3)
    await time.advance(14_000) // past the lead time: the second token is in
    expect(refresh.url).toContain('/tok0002plain/')
    refresh.destroy()
  })
})
