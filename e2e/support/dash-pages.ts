// DASH players with no package of ours (Shaka, dash.js) in Chromium, on the page
// e2e/pages/dash-plain.ts served as a site of its own (support/user-page.ts), and what the
// specs read of them: currentTime sampled, stalls, the players' errors, the requests they made.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from '@playwright/test'
import { test } from '@playwright/test'
import { serveUserPage, type UserPage } from './user-page.ts'

/** The two DASH players a DASH user embeds without us. */
export type DashPlayer = 'shaka' | 'dashjs'

/** One sample of the page's `<video>`. */
export interface DashSample {
  at: number
  time: number
  ended: boolean
  paused: boolean
}

/** A page playing one MPD URL: its samples and every request it made, with statuses. */
export interface DashPage {
  label: string
  player: DashPlayer
  page: Page
  samples: DashSample[]
  requests: { at: number; url: string; status: number | 'failed' }[]
}

let site: Promise<UserPage> | undefined
/** The page's site, built once per worker (esbuild bundles both players). */
const dashSite = () => {
  site ??= serveUserPage('dash-plain')
  return site
}

/**
 * Opens the plain DASH page playing `src` (a session MPD, or a signed CDN URL: the control).
 *
 * @example
 * ```ts
 * const run = await openDashPage(browser, 'shaka', sessionMpdUrl, 'shaka session')
 * ```
 */
export async function openDashPage(
  browser: Browser,
  player: DashPlayer,
  src: string,
  label: string,
): Promise<DashPage> {
  const { url } = await dashSite()
  const page = await browser.newPage()
  const run: DashPage = { label, player, page, samples: [], requests: [] }
  page.on('response', (response) =>
    run.requests.push({ at: Date.now(), url: response.url(), status: response.status() }),
  )
  page.on('requestfailed', (request) =>
    run.requests.push({ at: Date.now(), url: request.url(), status: 'failed' }),
  )
  await page.goto(`${url}?${new URLSearchParams({ player, src })}`)
  return run
}

/** The page's `<video>` now. */
export const sampleDash = (run: DashPage): Promise<DashSample> =>
  run.page.evaluate(() => {
    const video = document.querySelector('video') as HTMLVideoElement
    return { at: Date.now(), time: video.currentTime, ended: video.ended, paused: video.paused }
  })

/** The players' own errors, as the page collected them. */
export const dashErrors = (run: DashPage): Promise<string[]> =>
  run.page.evaluate(() => (window as unknown as { dashPage: { errors: string[] } }).dashPage.errors)

/**
 * Samples every page every 250 ms until `until`, or until every page of `ending` has ended (the
 * controls never end: they are judged where the others stopped).
 *
 * @example
 * ```ts
 * await watchDash(runs, Date.now() + 100_000, sessionPages)
 * ```
 */
export async function watchDash(
  runs: DashPage[],
  until: number,
  ending: DashPage[] = runs,
): Promise<void> {
  while (Date.now() < until) {
    await Promise.all(
      runs.map(async (run) => {
        const next = await sampleDash(run).catch(() => undefined)
        if (next) run.samples.push(next)
      }),
    )
    if (ending.every((run) => run.samples.at(-1)?.ended)) return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** The longest time (ms) currentTime stood still while the page was neither paused nor ended, from its first move on. */
export function longestStallMs(run: DashPage): number {
  const moving = run.samples.findIndex((sample) => sample.time > 0)
  if (moving === -1) return Number.POSITIVE_INFINITY
  let longest = 0
  let since = run.samples[moving]
  for (const sample of run.samples.slice(moving)) {
    if (!since) break
    if (sample.time !== since.time || sample.ended || sample.paused) since = sample
    else longest = Math.max(longest, sample.at - since.at)
  }
  return longest
}

/**
 * A spec's figures (what each client read, stalls, the CDNs' view): attached to the report and
 * kept in `.tmp/e2e-figures/<name>.json` whatever the outcome, for BENCHMARKS.md and the issue.
 *
 * @example
 * ```ts
 * await attachFigures('dash-clients', { read, played })
 * ```
 */
export async function attachFigures(name: string, figures: unknown): Promise<void> {
  const folder = join(import.meta.dirname, '..', '..', '.tmp', 'e2e-figures')
  mkdirSync(folder, { recursive: true })
  const path = join(folder, `${name}.json`)
  writeFileSync(path, JSON.stringify(figures, null, 2))
  await test.info().attach(`${name}.json`, { path, contentType: 'application/json' })
}
