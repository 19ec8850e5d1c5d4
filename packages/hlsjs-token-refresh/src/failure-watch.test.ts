import Hls from 'hls.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { useTokenCdn } from '../test/token-cdn.ts'
import { createTokenRefresh } from './create-token-refresh.ts'

// What runs only after a failure (the give-up, the outage revival) is a module of its own,
// imported with the first failure: counted here by loading it through a mock that records each
// load (a module is fetched once, however often it is imported).
const module = vi.hoisted(() => ({ loads: 0 }))
vi.mock('./after-failure.ts', async (importOriginal) => {
  module.loads++
  return importOriginal()
})

const env = useTokenCdn()
const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

describe('what runs after a failure, loaded on demand', () => {
  it('a page that plays without trouble never loads it; the first failure loads it, once', async () => {
    const refresh = await createTokenRefresh({ ...env.options(), Hls })
    const hls = new Hls({ ...refresh.hlsConfig, autoStartLoad: true })
    cleanups.push(() => hls.destroy())
    refresh.attach(hls)
    const loaded = new Promise((resolve) => hls.once(Hls.Events.LEVEL_LOADED, resolve))
    hls.loadSource(refresh.url)
    await loaded
    await env.time.advance(50_000) // past two expiries: refreshes, and requests with each token
    expect(refresh.refresher.refreshCount).toBeGreaterThanOrEqual(2)
    expect(env.cdn.hits.every((hit) => hit.status === 200)).toBe(true)
    await vi.dynamicImportSettled()
    expect(module.loads).toBe(0)

    // the token backend fails once: the module comes (a failed refresh is a failure)
    env.backend.fail(2)
    await refresh.refresher.refresh().catch(() => undefined)
    await vi.dynamicImportSettled()
    expect(module.loads).toBe(1)
    await refresh.refresher.refresh().catch(() => undefined) // and a second failure: no reload
    hls.trigger(Hls.Events.ERROR, {
      type: Hls.ErrorTypes.NETWORK_ERROR,
      details: Hls.ErrorDetails.LEVEL_LOAD_ERROR,
      fatal: false,
      error: new Error('503'),
    })
    await vi.dynamicImportSettled()
    expect(module.loads).toBe(1)
  })
})
