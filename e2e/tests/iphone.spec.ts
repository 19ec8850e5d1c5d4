// An "iPhone" without MediaSource: hls.js cannot run and video.js falls back to native HLS, where
// no request hook exists. Both packages notice, protect the native playback (here with the
// service worker) and survive 3 expiries.
import {
  demoUrl,
  expect,
  type PlayerName,
  probe,
  test,
  waitForPlayback,
  watchPlayback,
} from '../support/demo.ts'

// the two packages with a native mode; Shaka plays HLS through MSE only
const NATIVE_CAPABLE: PlayerName[] = ['videojs', 'hlsjs']

for (const player of NATIVE_CAPABLE)
  test(`${player} on a browser without MediaSource plays natively past 3 expiries`, async ({
    page,
    traffic,
  }) => {
    await page.addInitScript(() => {
      for (const name of ['MediaSource', 'ManagedMediaSource', 'WebKitMediaSource'])
        Reflect.deleteProperty(window, name)
    })
    await page.goto(demoUrl({ player, type: 'live', expire: 20, lead: 6 }))
    await waitForPlayback(page, player)
    await expect.poll(async () => (await probe(page, player)).mode).toBe('service-worker')
    const run = await watchPlayback(page, player, 50_000)

    expect(run.advanced).toBeGreaterThan(43)
    expect(run.longestStallMs).toBeLessThanOrEqual(1000)
    expect(traffic.rejected()).toEqual([])
    expect(traffic.sent.filter((entry) => entry.status !== 200)).toEqual([])
    const state = await probe(page, player)
    expect(state.fatal).toEqual([])
    expect(state.refreshCount).toBeGreaterThanOrEqual(3)
    // the worker stayed in force from the first visit on: not one source swap
    expect(state.mode).toBe('service-worker')
    expect(state.swaps).toEqual([])
  })
