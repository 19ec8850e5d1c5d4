// Issue 32, the JavaScript lane on DASH: dash.js with @proj/dashjs-token-refresh, and Shaka and
// video.js with their packages as they are, all three at once on one demo page (`format=dash`:
// the token worker's URLs name the MPD) playing the DASH rendition through nginx, VOD and live,
// with 15-s tokens refreshed 4 s early for 48 s: past three lifetimes. Each player: time
// advances, no stall over 1 s, no fatal error, at least 3 refreshes. The page: no 403/410 at all
// (every token expired during the watch, so every request after the first expiry went out on a
// refreshed pair), and every kind of request went through: the MPD (on live its updates, on three
// pairs or more), init segments, and media segments on three pairs or more.
import {
  demoUrl,
  expect,
  type PlayerName,
  probe,
  test,
  waitForPlayback,
  watchPlayback,
} from '../support/demo.ts'

/** The players of the DASH rendition (the demo shows these three with `format=dash`). */
const DASH_PLAYERS: PlayerName[] = ['dashjs', 'shaka', 'videojs']
const LIFETIME = 15
const LEAD = 4
const WATCH_MS = 48_000

/** What a media path of the DASH rendition is, for the count of pairs per kind. */
const KINDS = {
  mpd: /(^|\/)manifest\.mpd$/,
  init: /(^|\/)init-[^/]*\.m4s$/,
  media: /(^|\/)(chunk|live)-[^/]*\.m4s$/,
} as const

for (const type of ['vod', 'live'] as const)
  test(`DASH, ${type}: dash.js, Shaka and video.js keep playing past 3 expiries`, async ({
    page,
    traffic,
  }) => {
    await page.goto(demoUrl({ player: 'all', format: 'dash', type, expire: LIFETIME, lead: LEAD }))
    for (const player of DASH_PLAYERS) await waitForPlayback(page, player)
    const runs = await Promise.all(
      DASH_PLAYERS.map((player) => watchPlayback(page, player, WATCH_MS)),
    )

    for (const [i, player] of DASH_PLAYERS.entries()) {
      const run = runs[i]
      const state = await probe(page, player)
      const label = `${player} ${type}`
      expect(run?.advanced, `${label}: media seconds played`).toBeGreaterThan(
        (WATCH_MS / 1000) * 0.85,
      )
      expect(run?.longestStallMs, `${label}: longest stall`).toBeLessThanOrEqual(1000)
      expect(state.fatal, `${label}: fatal errors`).toEqual([])
      expect(state.refreshCount, `${label}: refreshes`).toBeGreaterThanOrEqual(3)
    }
    expect(traffic.rejected()).toEqual([])
    const [firstRecord] = traffic.tokens
    expect(Date.now() / 1000, 'the first token expired during the watch').toBeGreaterThan(
      (firstRecord?.expires ?? Number.POSITIVE_INFINITY) + 2 * (LIFETIME - LEAD),
    )
    for (const [kind, pattern] of Object.entries(KINDS)) {
      const pairs = new Set(
        traffic.media.filter((entry) => pattern.test(entry.path)).map((entry) => entry.token),
      )
      // a VOD's MPD is loaded once per player and init segments once per rendition, mostly on
      // the first pair; media segments and a live MPD's updates go on all along
      const fewest = kind === 'media' || (kind === 'mpd' && type === 'live') ? 3 : 1
      expect(pairs.size, `${type}: pairs the ${kind} requests carried`).toBeGreaterThanOrEqual(
        fewest,
      )
    }
  })
