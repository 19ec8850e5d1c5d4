// Scenario 2: the same live stream and 20-second tokens with the refresh off. The CDN really
// enforces expiry: requests after it get 410 and playback stops.
import {
  demoUrl,
  expect,
  PLAYERS,
  test,
  waitForPlayback,
  waitForPlaybackToStop,
} from '../support/demo.ts'

for (const player of PLAYERS)
  test(`${player}: without the refresh, playback dies at expiry`, async ({ page, traffic }) => {
    await page.goto(demoUrl({ player, type: 'live', expire: 20, refresh: false }))
    await waitForPlayback(page, player)
    const [token] = traffic.tokens.slice(-1)
    // a request after the expiry second gets 410 Gone
    await expect
      .poll(() => traffic.media.filter((entry) => entry.status === 410).length, { timeout: 40_000 })
      .toBeGreaterThan(0)
    const gone = traffic.media.find((entry) => entry.status === 410)
    expect(gone?.at ?? 0).toBeGreaterThanOrEqual((token?.expires ?? 0) * 1000)
    expect(traffic.media.filter((entry) => entry.status === 403)).toEqual([])
    // …and playback stops: no frame decoded for 5 s within the next 45 s
    await waitForPlaybackToStop(page, player)
  })
