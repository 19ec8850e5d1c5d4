// Issue 13, part 0: the token backend answers 503 for 45 s, longer than a token's life (20 s), on
// a live stream. Requests wait for the new token instead of burning the players' retries, the
// refresh is retried every few seconds while playback waits, and a player that gave up is brought
// back: playback moves again within a few seconds of the backend's return, without a page reload.
import { answerOutage } from '../support/backend-faults.ts'
import { demoUrl, expect, probe, test, waitForPlayback } from '../support/demo.ts'

const OUTAGE_MS = 45_000

for (const player of ['videojs', 'hlsjs'] as const)
  test(`${player}: a 45-s token backend outage on live, longer than the token's life`, async ({
    page,
  }) => {
    let outageFrom = 0
    let outageUntil = Number.POSITIVE_INFINITY
    let calls = 0
    await page.route(/:\d+\/token\?/, async (route) => {
      calls++
      // call 1: the page finds the CDN; call 2: the player's first token; then the outage
      if (calls === 3) {
        outageFrom = Date.now()
        outageUntil = outageFrom + OUTAGE_MS
      }
      if (Date.now() < outageUntil && calls >= 3) return answerOutage(route)
      return route.continue()
    })
    await page.goto(demoUrl({ player, type: 'live', expire: 20, lead: 6 }))
    await page.evaluate(() => {
      ;(window as unknown as { notReloaded: boolean }).notReloaded = true
    })
    await waitForPlayback(page, player)
    await expect.poll(() => outageFrom, { timeout: 30_000 }).toBeGreaterThan(0)
    await page.waitForTimeout(Math.max(0, outageUntil - Date.now()))

    // the backend is back: playback must move again within a few seconds
    const back = Date.now()
    // moving = two samples 500 ms apart advance (a live reload may restart the timeline)
    const moving = async () => {
      const from = (await probe(page, player)).time
      await page.waitForTimeout(500)
      return (await probe(page, player)).time > from + 0.2
    }
    await expect.poll(moving, { timeout: 15_000, intervals: [0] }).toBe(true)
    const resumedAfterMs = Date.now() - back - 500
    console.log(
      `long outage, ${player}: playing again ${resumedAfterMs} ms after the backend came back`,
    )
    expect(resumedAfterMs).toBeLessThanOrEqual(8_000)
    // and keeps playing
    for (let i = 0; i < 6; i++) expect(await moving()).toBe(true)
    expect(
      await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
    ).toBe(true)
    // fast retries during the outage: seconds apart, not tens of seconds
    expect(calls - 3).toBeGreaterThanOrEqual(OUTAGE_MS / 1000 / 6)
  })
