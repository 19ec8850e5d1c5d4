// Issue 32, several CDNs for the DASH players of the JavaScript lane: dash.js with its package,
// Shaka and video.js with theirs, each on a demo page of its own (`format=dash`) against the
// multi-CDN spec's servers (two nginx CDNs with their own secrets, the fault injector in front of
// A, the token backend's Node entry signing for both: e2e/support/multi-cdn.ts). One window per
// fault kind, A failing from t = 15 s to t = 45 s: 503, then (the next window) a hang. dash.js
// plays live and VOD in both windows (its package is the new one: it meets each fault on both);
// Shaka and video.js, whose packages the HLS windows of multi-cdn.spec.ts cover, play live under
// the 503 and VOD under the hang (why below). Every player: playing throughout (no stall over 1 s, no
// error), at most 2 CDN switches, a live one back on A by the end; nginx's logs: each CDN received
// only URLs signed with its own secret and refused none, and no B token reached A's injector.
// Each window's timeline (switches, stalls, every CDN request) is attached.
// dash.js plays live 10 s behind the edge (the demo's `delay`): the live MPD suggests 4 s (two
// segments), and with 2 s or less ahead no failover outruns a hang. dash.js bounds whole requests
// (3 s + the segment's 2 s) and re-sends after its 1-s retry interval: 6 s (measured at 4 s
// behind: a 3.9-s stall; the package's README, "Several CDNs"). Shaka and video.js play live at
// the MPD's 4 s: a hang costs them the 3-s first-byte bound plus B's answer, which leaves them
// under a second of media (video.js live under a hang stalled 0.2-0.4 s in quiet runs, 1.3 s in a
// busy one), so their live pages meet the 503 window and their VOD pages the hang, as in the HLS
// spec (multi-cdn.spec.ts); a page that must ride out a hang live plays further behind, as dash.js
// does here (docs/multi-cdn.md).

import { type DashPage, openDashPages } from '../support/dash-demo-pages.ts'
import { expect, type PlayerName, probe, test, watchPlayback } from '../support/demo.ts'
import {
  type FaultMode,
  SECRETS,
  signedRequests,
  signerOf,
  startCdn,
  startInjector,
  startTokenInstance,
} from '../support/multi-cdn.ts'

// one window at a time: each has four playing pages, and the other worker runs other specs
test.describe.configure({ mode: 'default' })

const FAULT_ON_MS = 15_000
const FAULT_OFF_MS = 45_000
/** The watch: A back at t = 45 s, a live player back on it after the lane's cooldown and probe. */
const WINDOW_MS = 75_000
/** dash.js's live delay (s): its failover budget on a hang (6 s) and a segment. */
const DASHJS_LIVE_DELAY = 10
const MAX_STALL_MS = 1000
const MAX_SWITCHES = 2

/** Which type each player plays in each window (dash.js both; Shaka and video.js live under the 503). */
const WINDOWS: Record<'503' | 'hang', { player: PlayerName; type: 'vod' | 'live' }[]> = {
  '503': [
    { player: 'dashjs', type: 'live' },
    { player: 'dashjs', type: 'vod' },
    { player: 'shaka', type: 'live' },
    { player: 'videojs', type: 'live' },
  ],
  hang: [
    { player: 'dashjs', type: 'live' },
    { player: 'dashjs', type: 'vod' },
    { player: 'shaka', type: 'vod' },
    { player: 'videojs', type: 'vod' },
  ],
}

/** A CDN switch the page's refresher announced (`cdnchange`). */
interface Switch {
  at: number
  from: string
  to: string
  reason: string
}

/** Keeps the refresher's `cdnchange` events in `window.cdnChanges` (the refresher exists: it plays). */
const listenForSwitches = (run: DashPage) =>
  run.page.evaluate((name) => {
    const page = window as unknown as {
      demo: Record<string, { refresher?: EventTarget }>
      cdnChanges: Switch[]
    }
    page.cdnChanges = []
    page.demo[name]?.refresher?.addEventListener('cdnchange', (event) =>
      page.cdnChanges.push({
        at: Date.now(),
        ...(event as CustomEvent<Omit<Switch, 'at'>>).detail,
      }),
    )
  }, run.player)

for (const mode of ['503', 'hang'] as const satisfies readonly FaultMode[])
  test(`DASH players on two CDNs, A failing (${mode}) from t=15 s to t=45 s: each plays on through B, each CDN sees only its own tokens`, async ({
    page,
  }, testInfo) => {
    test.setTimeout(WINDOW_MS + 120_000)
    const [a, b] = await Promise.all([startCdn('a', SECRETS.a), startCdn('b', SECRETS.b)])
    const injector = await startInjector(a)
    const both = await startTokenInstance({ a: injector, secretA: SECRETS.a, b })
    try {
      const runs: (DashPage & { type: 'vod' | 'live' })[] = []
      for (const type of ['live', 'vod'] as const) {
        const players = WINDOWS[mode].filter((entry) => entry.type === type)
        const opened = await openDashPages(
          runs.length === 0 ? page : await page.context().newPage(),
          {
            type,
            expire: 20,
            lead: 6,
            buffer: 12,
            liveDelay: DASHJS_LIVE_DELAY,
            tokenUrl: `${both.origin}/token`,
          },
          page.context(),
          players.map((entry) => entry.player),
        )
        runs.push(...opened.map((run) => ({ ...run, type })))
      }
      await Promise.all(runs.map(listenForSwitches))
      const t0 = Date.now()
      await injector.schedule({ mode, start: t0, onAtMs: FAULT_ON_MS, offAtMs: FAULT_OFF_MS })
      const watches = await Promise.all(
        runs.map((run) => watchPlayback(run.page, run.player, WINDOW_MS)),
      )

      const rel = (ms: number) => ((ms - t0) / 1000).toFixed(1)
      const lines = [`fault ${mode} on ${FAULT_ON_MS / 1000}-${FAULT_OFF_MS / 1000} s`]
      const results = await Promise.all(
        runs.map(async (run, i) => {
          const state = await probe(run.page, run.player)
          const switches = await run.page.evaluate(
            () => (window as unknown as { cdnChanges: Switch[] }).cdnChanges,
          )
          const active = await run.page.evaluate(
            (name) =>
              (
                window as unknown as {
                  demo: Record<string, { refresher?: { activeCdn?: string } }>
                }
              ).demo[name]?.refresher?.activeCdn,
            run.player,
          )
          const label = `${run.player} ${run.type}`
          lines.push(
            `${label} (video ${run.video}): longest stall ${watches[i]?.longestStallMs} ms, switches ${JSON.stringify(switches.map((s) => `${rel(s.at)}s ${s.from}->${s.to} ${s.reason}`))}, on ${active} at the end, fatal ${JSON.stringify(state.fatal)}`,
          )
          return { run, label, state, switches, active, stallMs: watches[i]?.longestStallMs ?? 0 }
        }),
      )
      const logs = runs.map((run) => ({
        run,
        a: signedRequests(a, run.video),
        b: signedRequests(b, run.video),
        injected: injector.requests(run.video),
      }))
      for (const { run, a: atA, b: atB, injected } of logs) {
        for (const r of atA)
          lines.push(
            `${rel(r.at)} ${run.player} nginx A ${r.status} ${r.signer ?? '?'}-signed ${r.path}`,
          )
        for (const r of atB)
          lines.push(
            `${rel(r.at)} ${run.player} nginx B ${r.status} ${r.signer ?? '?'}-signed ${r.path}`,
          )
        for (const r of injected)
          lines.push(`${rel(r.at)} ${run.player} injector ${r.mode} ${r.status} ${r.path}`)
      }
      await testInfo.attach(`dash-fault-${mode}.txt`, {
        body: lines.join('\n'),
        contentType: 'text/plain',
      })
      console.log(lines.slice(0, 1 + runs.length).join('\n'))

      for (const { label, state, switches, active, stallMs, run } of results) {
        expect.soft(state.fatal, `${label}: errors`).toEqual([])
        expect.soft(stallMs, `${label}: longest stall (ms)`).toBeLessThanOrEqual(MAX_STALL_MS)
        expect.soft(switches.length, `${label}: CDN switches`).toBeGreaterThanOrEqual(1)
        expect.soft(switches.length, `${label}: CDN switches`).toBeLessThanOrEqual(MAX_SWITCHES)
        if (run.type === 'live') expect.soft(active, `${label}: back on A`).toBe('primary')
      }
      for (const { run, a: atA, b: atB, injected } of logs) {
        const foreign = [
          ...atA.filter((r) => r.signer !== 'a').map((r) => `A ${r.path}`),
          ...atB.filter((r) => r.signer !== 'b').map((r) => `B ${r.path}`),
          ...injected
            .filter((r) => signerOf(r.path, run.video, SECRETS) === 'b')
            .map((r) => `A's injector ${r.path}`),
        ]
        expect.soft(foreign, `${run.player}: URLs a CDN got signed for the other`).toEqual([])
        const refused = [...atA, ...atB].filter((r) => r.status === 403).map((r) => r.path)
        expect.soft(refused, `${run.player}: 403 from a healthy nginx`).toEqual([])
      }
    } finally {
      await Promise.all([both, injector, a, b].map((server) => server.stop()))
    }
  })
