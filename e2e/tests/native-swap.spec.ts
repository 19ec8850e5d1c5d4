// The native fallback without a service worker (mode=swap): the <video> is switched to each new
// URL with its state restored. Every gap (swap → playing) and drift (position moved) is measured
// against the goals: gap < 1 s, drift < 0.5 s.
import { demoUrl, expect, probe, test, waitForPlayback, watchPlayback } from '../support/demo.ts'

const native = 'native' as const

for (const type of ['vod', 'live'] as const)
  test(`native + source swap, ${type}: past 3 expiries, each swap short and in place`, async ({
    page,
    traffic,
  }, testInfo) => {
    await page.goto(demoUrl({ player: native, type, mode: 'swap', expire: 20, lead: 6 }))
    await waitForPlayback(page, native)
    expect((await probe(page, native)).mode).toBe('swap')
    const run = await watchPlayback(page, native, 55_000)

    const state = await probe(page, native)
    await testInfo.attach('swaps.json', {
      body: JSON.stringify(state.swaps, null, 2),
      contentType: 'application/json',
    })
    expect(state.swaps.length).toBeGreaterThanOrEqual(3)
    for (const swap of state.swaps) {
      expect(swap.gapMs).toBeLessThan(1000)
      if (type === 'vod') expect(swap.driftSeconds).toBeLessThan(0.5)
    }
    expect(run.advanced).toBeGreaterThan(45)
    expect(traffic.rejected()).toEqual([])
    expect(state.fatal).toEqual([])
  })
