// Scenario 1: with the refresh, 20-second tokens and a 6-second lead, playback runs for 50 s
// (≥ 3 refreshes; the third token expires 48 s after the first fetch, before the watch ends) through nginx with no 403/410, no fatal error and no stall over 1 s.
import {
  demoUrl,
  expect,
  PLAYERS,
  probe,
  test,
  tokenFetchBounds,
  waitForPlayback,
  watchPlayback,
} from '../support/demo.ts'

const LIFETIME = 20
const LEAD = 6

for (const player of PLAYERS)
  for (const type of ['vod', 'live'] as const)
    test(`${player}, ${type}: refresh keeps playback alive past 3 expiries`, async ({
      page,
      traffic,
    }) => {
      await page.goto(demoUrl({ player, type, expire: LIFETIME, lead: LEAD }))
      await waitForPlayback(page, player)
      const run = await watchPlayback(page, player, 50_000)

      expect(run.advanced).toBeGreaterThan(44)
      expect(run.longestStallMs).toBeLessThanOrEqual(1000)
      expect(traffic.rejected()).toEqual([])
      const state = await probe(page, player)
      expect(state.fatal).toEqual([])
      expect(state.refreshCount).toBeGreaterThanOrEqual(3)
      // The page fetched one record to find the CDN; the player then fetches its first token
      // and one per (lifetime − lead) seconds, spread.
      const [probeFetch, first] = traffic.tokens
      expect(probeFetch && first).toBeTruthy()
      const elapsed = (Date.now() - (first?.at ?? 0)) / 1000
      // the refreshes are spread (the first one anywhere in the first lifetime): bounds, not a count
      const { min, max } = tokenFetchBounds(elapsed, LIFETIME, LEAD)
      expect(traffic.tokens.length - 1).toBeGreaterThanOrEqual(min)
      expect(traffic.tokens.length - 1).toBeLessThanOrEqual(max)
    })
