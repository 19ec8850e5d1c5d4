// Scenario 6: the viewer's clock is 10 minutes fast, then 10 minutes slow. The refresh runs on
// the server's clock (the token response's Date header): playback continues and token fetches
// stay bounded, no storm.
import { setClockOffset, skewClock } from '../support/clock.ts'
import {
  demoUrl,
  expect,
  PLAYERS,
  probe,
  test,
  waitForPlayback,
  watchPlayback,
} from '../support/demo.ts'

const LIFETIME = 20
const LEAD = 6

for (const player of PLAYERS)
  test(`${player}: a clock 10 min fast, then 10 min slow`, async ({ page, traffic }) => {
    await skewClock(page, 10 * 60_000)
    await page.goto(demoUrl({ player, type: 'live', expire: LIFETIME, lead: LEAD }))
    await waitForPlayback(page, player)
    const started = Date.now()
    const fast = await watchPlayback(page, player, 30_000)
    const fastFetches = traffic.tokenRequests
    // 30 s with 14 s between refreshes: about 2–3 refreshes, plus the page's two first fetches
    expect(fastFetches).toBeLessThanOrEqual(
      2 + Math.ceil((Date.now() - started) / 1000 / (LIFETIME - LEAD)) + 1,
    )

    await setClockOffset(page, -10 * 60_000)
    const slowStart = Date.now()
    const slow = await watchPlayback(page, player, 30_000)
    const slowFetches = traffic.tokenRequests - fastFetches
    expect(slowFetches).toBeLessThanOrEqual(
      Math.ceil((Date.now() - slowStart) / 1000 / (LIFETIME - LEAD)) + 2,
    )

    expect(fast.advanced + slow.advanced).toBeGreaterThan(52)
    expect(Math.max(fast.longestStallMs, slow.longestStallMs)).toBeLessThanOrEqual(2000)
    expect((await probe(page, player)).fatal).toEqual([])
  })
