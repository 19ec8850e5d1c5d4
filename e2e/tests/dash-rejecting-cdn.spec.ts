// Issue 32: a CDN that refuses every fresh token, for the DASH players: dash.js with its package,
// Shaka and video.js with theirs, one demo page each (`format=dash`, a video of its own) in one
// window, VOD and live, each type on a rotation slot of its own (its nginx and token worker).
// Once playback runs the CDN's secret becomes one nobody signs with, so every token, the fresh
// ones included, gets 403. Each player must end in its own error within 30 s of its first refused
// request, after exactly one TokenRejectedError of its refresher, with at most 20 media requests
// from that 403 until 5 s after its error (as for hls.js, video.js and Shaka on HLS,
// rejecting-cdn.spec.ts). dash.js's error is its own `error` event, raised by the package (dash.js
// has no fatal error of its own and would retry refused segments for ever). The figures of each
// run are printed and attached.

import { type DashPage, openDashPages } from '../support/dash-demo-pages.ts'
import { expect, type MediaRequest, probe, test } from '../support/demo.ts'
import { rotatingCdn, rotatingTokenWorker } from '../support/rotation.ts'

const SLOTS = { live: 8, vod: 9 } as const
/** The goal: each player's own error within this time of its first refusal. */
const FATAL_WITHIN_MS = 30_000
/** How long the spec looks for the errors (beyond the goal, to measure). */
const OBSERVE_MS = 40_000
/** A player's media requests from its first 403 until 5 s after its error (rejecting-cdn.spec.ts). */
const MAX_REQUESTS = 20

/** What became of one player after the break. */
interface Outcome {
  run: DashPage
  rejectedAt?: number
  fatalAt?: number
}

for (const type of ['live', 'vod'] as const)
  test(`DASH, ${type}: a CDN that rejects every token ends dash.js, Shaka and video.js in their own errors`, async ({
    page,
  }, testInfo) => {
    const cdn = await rotatingCdn(SLOTS[type], 'dash-rejecting-secret')
    const worker = await rotatingTokenWorker(SLOTS[type], cdn, 'dash-rejecting-secret')
    try {
      const runs = await openDashPages(page, {
        type,
        expire: 20,
        lead: 6,
        buffer: 12,
        tokenUrl: worker.url,
      })
      await page.waitForTimeout(3000)
      for (const run of runs) expect((await probe(run.page, run.player)).fatal).toEqual([])

      const brokenAt = Date.now()
      await cdn.rotate({ secret: 'dash-rejecting-secret-nobody-has' })
      const outcomes: Outcome[] = runs.map((run) => ({ run }))
      const deadline = Date.now() + OBSERVE_MS
      const settled = () =>
        outcomes.every((o) => o.fatalAt !== undefined && o.rejectedAt !== undefined)
      while (Date.now() < deadline && !settled()) {
        for (const outcome of outcomes) {
          const state = await probe(outcome.run.page, outcome.run.player)
          const now = Date.now()
          if (state.errors.some((e) => e.includes('TokenRejectedError'))) outcome.rejectedAt ??= now
          if (state.fatal.length > 0) outcome.fatalAt ??= now
        }
        await page.waitForTimeout(100)
      }
      // nothing more after the errors: the requests stop
      await page.waitForTimeout(5000)

      const firstRejection = ({ traffic }: DashPage): MediaRequest | undefined =>
        traffic.media.find((entry) => entry.at > brokenAt && entry.status === 403)
      const lines: string[] = []
      const timeline: string[] = []
      for (const { run, rejectedAt, fatalAt } of outcomes) {
        const from = firstRejection(run)?.at ?? brokenAt
        const since = (at: number | undefined) => (at === undefined ? 'never' : `${at - from} ms`)
        const after = run.traffic.media.filter((entry) => entry.at >= from)
        const state = await probe(run.page, run.player)
        lines.push(
          `${run.player}: first 403 ${from - brokenAt} ms after the break, TokenRejectedError ${since(rejectedAt)}, its error ${since(fatalAt)} (${state.fatal.join('; ')}), ${after.length} media requests`,
        )
        timeline.push(
          ...after.map(
            (entry) => `${run.player} ${entry.at - from} ms ${entry.status} ${entry.path}`,
          ),
        )
      }
      const summary = `rejecting CDN, DASH ${type}: ${lines.join('; ')}`
      console.log(summary)
      testInfo.annotations.push({ type: 'rejecting CDN (DASH)', description: summary })
      await testInfo.attach('timeline.txt', {
        body: [summary, ...timeline].join('\n'),
        contentType: 'text/plain',
      })

      for (const { run, fatalAt } of outcomes) {
        const from = firstRejection(run)?.at
        expect(from, `${run.player}: the CDN refused a token`).toBeDefined()
        const state = await probe(run.page, run.player)
        const rejections = state.errors.filter((error) => error.includes('TokenRejectedError'))
        expect(rejections, `${run.player}: one TokenRejectedError`).toHaveLength(1)
        expect(fatalAt, `${run.player}: its own error`).toBeDefined()
        expect(
          (fatalAt ?? Number.POSITIVE_INFINITY) - (from ?? brokenAt),
          `${run.player}: ms from its first 403 to its error`,
        ).toBeLessThanOrEqual(FATAL_WITHIN_MS)
        const after = run.traffic.media.filter((entry) => entry.at >= (from ?? brokenAt))
        expect(after.length, `${run.player}: media requests`).toBeLessThanOrEqual(MAX_REQUESTS)
      }
    } finally {
      await worker.stop()
      await cdn.stop()
    }
  })
