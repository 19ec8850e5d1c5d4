// Scenario 4: the token backend fails three refreshes in a row (429 with Retry-After: 2, 500,
// network error) and then recovers, all inside the 6-second lead: no stall, no 403/410 (neither
// what the player saw nor what reached the CDN), onError called each time, and the rate-limited
// refresh is not retried before the Retry-After the backend sent.
import {
  demoUrl,
  expect,
  PLAYERS,
  type PlayerName,
  probe,
  test,
  waitForPlayback,
  watchPlayback,
} from '../support/demo.ts'

// the players with hooks, and a native <video> under the service worker
for (const player of [...PLAYERS, 'native'] as PlayerName[])
  test(`${player}: three failed refreshes inside the lead time do not stall playback`, async ({
    page,
    traffic,
  }) => {
    let calls = 0
    const at: number[] = []
    await page.route(/:\d+\/token\?/, async (route) => {
      calls++
      at.push(Date.now())
      // call 1: the page finds the CDN; call 2: the player's first token; 3–5: the first refresh
      if (calls === 3)
        return route.fulfill({
          status: 429,
          // what the token worker sends cross-origin: the page may read Retry-After
          headers: {
            'access-control-allow-origin': '*',
            'access-control-expose-headers': 'Date, Retry-After',
            'retry-after': '2',
          },
          contentType: 'application/json',
          body: '{"error":"injected failure: too many token requests: retry after 2 s"}',
        })
      if (calls === 4)
        return route.fulfill({
          status: 500,
          headers: { 'access-control-allow-origin': '*' },
          contentType: 'application/json',
          body: '{"error":"injected failure"}',
        })
      if (calls === 5) return route.abort('connectionreset')
      return route.continue()
    })
    await page.goto(demoUrl({ player, expire: 20, lead: 6 }))
    await waitForPlayback(page, player)
    const run = await watchPlayback(page, player, 35_000)
    expect(calls).toBeGreaterThanOrEqual(6)
    expect((at[3] ?? 0) - (at[2] ?? 0)).toBeGreaterThanOrEqual(2000) // Retry-After honoured
    expect(run.longestStallMs).toBeLessThanOrEqual(1000)
    expect(traffic.rejected()).toEqual([])
    expect(
      traffic.sent.filter((entry) => entry.status !== 200 && entry.status !== 'aborted'),
    ).toEqual([])
    const state = await probe(page, player)
    expect(state.errors).toHaveLength(3)
    expect(state.errors[0]).toContain('injected failure')
    expect(state.fatal).toEqual([])
    expect(state.refreshCount).toBeGreaterThanOrEqual(2)
  })
