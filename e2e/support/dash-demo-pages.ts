// The DASH players of the JavaScript lane, one demo page each, in one browser window at once:
// dash.js with @proj/dashjs-token-refresh, Shaka and video.js with their packages as they are.
// One page per player, each on a video name of its own (every name plays the same media), so
// that each player's requests, at the page and in a CDN's log, are its own, and no two players
// share a page's records (refreshers of one video on one page share each new record).
import type { BrowserContext, Page } from '@playwright/test'
import { type DemoOptions, demoUrl, type PlayerName, TrafficLog, waitForPlayback } from './demo.ts'
import { uniqueVideo } from './hls-clients.ts'

/** The players of the DASH rendition. */
export const DASH_PLAYERS = ['dashjs', 'shaka', 'videojs'] as const satisfies PlayerName[]

/** One DASH player playing on a page of its own. */
export interface DashPage {
  player: PlayerName
  page: Page
  /** Its video's name: what its requests and a CDN's log lines carry. */
  video: string
  traffic: TrafficLog
}

/**
 * Opens one demo page per player of `players` (default: the three) in `context`, `first` (the
 * test's own page) for the first, each on the DASH rendition (`format=dash`) of a video of its
 * own, and waits until every player plays.
 *
 * @example
 * ```ts
 * const pages = await openDashPages(page, { type: 'live', expire: 15, lead: 4 })
 * ```
 */
export async function openDashPages(
  first: Page,
  options: Omit<DemoOptions, 'player' | 'format' | 'video'>,
  context: BrowserContext = first.context(),
  players: readonly PlayerName[] = DASH_PLAYERS,
): Promise<DashPage[]> {
  const pages = await Promise.all(
    players.map(async (player, i) => {
      const page = i === 0 ? first : await context.newPage()
      const video = uniqueVideo(`dash-${player}`)
      const traffic = new TrafficLog(page)
      await page.goto(demoUrl({ ...options, player, format: 'dash', video }))
      return { player, page, video, traffic }
    }),
  )
  await Promise.all(pages.map(({ page, player }) => waitForPlayback(page, player)))
  return pages
}
