// The CDN emulator that `npm start` uses: both players play through it and across a refresh.
import {
  demoUrl,
  expect,
  PLAYERS,
  probe,
  test,
  waitForPlayback,
  watchPlayback,
} from '../support/demo.ts'

// the two original players: a smoke test of the emulator, not of each adapter
for (const player of PLAYERS.filter((name) => name !== 'shaka'))
  test(`${player}: plays through the CDN emulator across a refresh`, async ({ page, traffic }) => {
    await page.goto(demoUrl({ player, cdn: 'emulator' }))
    await waitForPlayback(page, player)
    const run = await watchPlayback(page, player, 25_000)
    expect(run.advanced).toBeGreaterThan(20)
    expect(traffic.rejected()).toEqual([])
    expect(traffic.media.every((entry) => entry.url.includes(':18082/'))).toBe(true)
    expect((await probe(page, player)).refreshCount).toBeGreaterThanOrEqual(1)
  })
