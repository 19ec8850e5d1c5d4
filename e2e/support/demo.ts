import { expect, type Page } from '@playwright/test'
import { type DemoQuery, demoSearch, type PlayerName } from '@proj/demo/config'
import { test as base } from './browser-witness.ts'
import { type Cdn, PORTS, tokenUrl } from './stack.ts'
import { recordWatch } from './watches.ts'

export type { PlayerName }
/**
 * The players with request hooks (MSE); `native` is the plain `<video>` with the refresh
 * packages, `session` the bare `<video>` on an edge session URL.
 */
export const PLAYERS: PlayerName[] = ['videojs', 'hlsjs', 'shaka']

/** What the demo page plays: its URL contract (`@proj/demo/config`), plus the stack's CDN. */
export interface DemoOptions extends Omit<DemoQuery, 'tokenUrl' | 'player'> {
  /** One player, or `all` of the page's (with `format: 'dash'`: dash.js, Shaka and video.js). */
  player: PlayerName | 'all'
  cdn?: Cdn
  /** Another token endpoint than the stack's (`cdn` is then ignored). */
  tokenUrl?: string
}

/** The demo page on the stack, with the e2e defaults: VOD, 20-s tokens, a 6-s lead. */
export function demoUrl({ cdn, tokenUrl: token, ...options }: DemoOptions): string {
  return `http://127.0.0.1:${PORTS.demo}/?${demoSearch({
    type: 'vod',
    expire: 20,
    lead: 6,
    ...options,
    tokenUrl: token ?? tokenUrl(cdn),
  })}`
}

/** One media request as the browser saw it. */
export interface MediaRequest {
  at: number
  url: string
  path: string
  token: string
  /** `aborted`: the player cancelled it (ABR switch, seek); `failed`: a network error. */
  status: number | 'failed' | 'aborted'
}

const CDN_PORTS: number[] = [
  PORTS.nginxPlain,
  PORTS.nginxIp,
  PORTS.emulatorPlain,
  PORTS.emulatorIp,
  ...PORTS.rotationCdn,
]
const TOKEN_PORTS: number[] = [PORTS.tokenNginx, PORTS.tokenEmulator, ...PORTS.rotationToken]
const PAIR = /^\/(?:videos|cmaf)\/[^/]+\/([^/]+)\/\d+\/(.+)$/

/**
 * Every media request and token fetch of a page, with times. `media` is what the page's players
 * saw (a request a service worker answered shows the URL the player asked for, with the status
 * the worker gave it); `sent` is what reached the CDN (the worker's own requests included).
 */
export class TrafficLog {
  readonly media: MediaRequest[] = []
  readonly sent: MediaRequest[] = []
  /** Token records the page received, in order (`at` = response time). */
  readonly tokens: { at: number; token: string; token_ip: string; expires: number }[] = []
  /** Token requests the page made (including failed ones). */
  tokenRequests = 0

  constructor(page: Page) {
    page.on('request', (request) => {
      const url = new URL(request.url())
      if (TOKEN_PORTS.includes(Number(url.port)) && url.pathname === '/token') this.tokenRequests++
    })
    page.context().on('response', (response) => {
      const url = new URL(response.url())
      if (response.request().serviceWorker() && CDN_PORTS.includes(Number(url.port)))
        this.#record(this.sent, url, response.status())
    })
    page.on('response', async (response) => {
      const url = new URL(response.url())
      const port = Number(url.port)
      if (CDN_PORTS.includes(port)) {
        this.#media(url, response.status())
        if (!response.fromServiceWorker()) this.#record(this.sent, url, response.status())
      } else if (TOKEN_PORTS.includes(port) && url.pathname === '/token' && response.ok()) {
        const at = Date.now()
        const record = await response.json().catch(() => undefined)
        if (record) this.tokens.push({ at, ...record })
      }
    })
    page.on('requestfailed', (request) => {
      const url = new URL(request.url())
      const aborted = request.failure()?.errorText === 'net::ERR_ABORTED'
      if (CDN_PORTS.includes(Number(url.port))) this.#media(url, aborted ? 'aborted' : 'failed')
    })
  }

  #media(url: URL, status: MediaRequest['status']) {
    this.#record(this.media, url, status)
  }

  #record(log: MediaRequest[], url: URL, status: MediaRequest['status']) {
    const match = PAIR.exec(url.pathname)
    if (!match) return
    log.push({
      at: Date.now(),
      url: url.href,
      token: match[1] ?? '',
      path: match[2] ?? '',
      status,
    })
  }

  /** Media answers that are not 2xx (403, 410, network failures; not the player's aborts). */
  rejected(): MediaRequest[] {
    return this.media.filter(
      (entry) =>
        entry.status === 'failed' || (typeof entry.status === 'number' && entry.status >= 300),
    )
  }
}

/** One source swap of the native fallback, as the page measured it. */
export interface SwapProbe {
  reason: string
  live: boolean
  gapMs: number
  driftSeconds: number | undefined
}

/** The player's state as the demo page exposes it (`window.demo`). */
export interface PlayerProbe {
  time: number
  paused: boolean
  refreshCount: number
  token: string | undefined
  errors: string[]
  fatal: string[]
  /** `hooks`, `service-worker` or `swap`; undefined before the player is set up. */
  mode: string | undefined
  /** Video frames decoded so far: what really plays (a player may move currentTime without media). */
  frames: number
  swaps: SwapProbe[]
}

/**
 * How many token fetches a player makes in `elapsedSeconds` after its first one, as the core plans
 * them (refresh-schedule.ts): the first refresh anywhere from half the spread to (lifetime - lead)
 * after the first fetch, each later one within the spread (a quarter of the lead, the core's
 * default) before the next lead time. One fetch of slack either way (a refresh in flight when the
 * watch ends, timers late on a busy machine).
 *
 * @example
 * ```ts
 * tokenFetchBounds(57, 20, 6) // { min: 4, max: 7 }: the first fetch included
 * ```
 */
export function tokenFetchBounds(
  elapsedSeconds: number,
  lifetime: number,
  lead: number,
): { min: number; max: number } {
  const period = lifetime - lead
  const spread = lead / 4
  const fewest = Math.floor(elapsedSeconds / period)
  const most =
    elapsedSeconds < spread / 2
      ? 0
      : 1 + Math.floor((elapsedSeconds - spread / 2) / (period - spread))
  return { min: 1 + fewest - 1, max: 1 + most + 1 }
}

export function probe(page: Page, player: PlayerName): Promise<PlayerProbe> {
  return page.evaluate((name) => {
    type State = {
      video?: HTMLVideoElement
      refresher?: { refreshCount: number; record: { token: string } }
      errors: string[]
      fatal: string[]
      mode?: string
      native?: { mode: string; swaps: SwapProbe[] }
    }
    const state = (window as unknown as { demo?: Record<string, State> }).demo?.[name]
    return {
      time: state?.video?.currentTime ?? 0,
      paused: state?.video?.paused ?? true,
      refreshCount: state?.refresher?.refreshCount ?? 0,
      token: state?.refresher?.record.token,
      errors: state?.errors ?? [],
      fatal: state?.fatal ?? [],
      mode: state?.native?.mode ?? state?.mode,
      frames: state?.video?.getVideoPlaybackQuality().totalVideoFrames ?? 0,
      swaps: [...(state?.native?.swaps ?? [])],
    }
  }, player)
}

/**
 * Resolves once no video frame has been decoded for 5 s (within `timeoutMs`): playback has
 * stopped. Frames, not currentTime: Shaka keeps nudging currentTime across an empty buffer.
 */
export function waitForPlaybackToStop(page: Page, player: PlayerName, timeoutMs = 45_000) {
  return expect
    .poll(
      async () => {
        const before = (await probe(page, player)).frames
        await page.waitForTimeout(5000)
        return (await probe(page, player)).frames - before
      },
      { timeout: timeoutMs, intervals: [0] },
    )
    .toBe(0)
}

/** Waits until the player's currentTime moves. */
export async function waitForPlayback(page: Page, player: PlayerName) {
  await expect
    .poll(async () => (await probe(page, player)).time, { timeout: 30_000, intervals: [250] })
    .toBeGreaterThan(0.3)
}

/** What {@link watchPlayback} saw. */
export interface PlaybackRun {
  /**
   * Media seconds played during the watch: the sum of forward steps of currentTime, each at most
   * twice the wall time between samples (a live source swap restarts the timeline at 0; a jump
   * to the live edge is not playback).
   */
  advanced: number
  /** Longest wall-clock interval without currentTime moving (ms). */
  longestStallMs: number
}

/**
 * Samples currentTime every 200 ms for `ms` of wall-clock time. Each watch is also recorded for
 * the refresh-efficiency benchmark (`bench/playback/refresh-efficiency.ts`): token fetches during
 * it, and its stalls with whether a token was refused (403/410) around them.
 */
export async function watchPlayback(
  page: Page,
  player: PlayerName,
  ms: number,
): Promise<PlaybackRun> {
  const refused: number[] = []
  const onResponse = (response: { status(): number; url(): string }) => {
    const port = Number(new URL(response.url()).port)
    if (CDN_PORTS.includes(port) && (response.status() === 403 || response.status() === 410))
      refused.push(Date.now())
  }
  page.on('response', onResponse)
  const first = await probe(page, player)
  let last = first.time
  const started = Date.now()
  let lastSample = started
  let lastMove = lastSample
  let longestStallMs = 0
  let advanced = 0
  const stalls: { from: number; to: number }[] = []
  const end = Date.now() + ms
  while (Date.now() < end) {
    await page.waitForTimeout(200)
    const { time, paused } = await probe(page, player)
    const now = Date.now()
    if (time !== last) {
      advanced += Math.min(Math.max(0, time - last), (2 * (now - lastSample)) / 1000)
      // a stall: over a second without moving while meant to play
      if (now - lastMove > 1200 && !paused) stalls.push({ from: lastMove, to: now })
      last = time
      lastMove = now
    }
    lastSample = now
    longestStallMs = Math.max(longestStallMs, now - lastMove)
  }
  if (lastSample - lastMove > 1200) stalls.push({ from: lastMove, to: lastSample })
  page.off('response', onResponse)
  const after = await probe(page, player)
  recordWatch(test.info(), {
    page: page.url(),
    player,
    mode: after.mode,
    wallMs: lastSample - started,
    advanced,
    fetches: after.refreshCount - first.refreshCount,
    stalls: stalls.map(({ from, to }) => ({
      ms: to - from,
      // refused while stalled, or up to 2 s before: the token's doing
      token: refused.some((at) => at >= from - 2000 && at <= to),
    })),
  })
  return { advanced, longestStallMs }
}

/**
 * The demo page fixture: a traffic log, attached to the report with the player state on failure;
 * on the browser witness's test (`browser-witness.ts`), so a closed page also names its cause.
 */
export const test = base.extend<{ traffic: TrafficLog; player: PlayerName }>({
  player: ['hlsjs', { option: true }],
  traffic: async ({ page }, use, testInfo) => {
    const log = new TrafficLog(page)
    const consoleLines: string[] = []
    page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`))
    page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error.message}`))
    await use(log)
    if (testInfo.status !== testInfo.expectedStatus) {
      const json = (body: unknown) => ({
        body: JSON.stringify(body, null, 2),
        contentType: 'application/json',
      })
      await testInfo.attach('media-requests.json', json(log.media))
      await testInfo.attach('token-records.json', json(log.tokens))
      const states = await page
        .evaluate(() => {
          const demo =
            (
              window as unknown as {
                demo?: Record<
                  string,
                  {
                    refresher?: { record: unknown; refreshCount: number }
                    errors: string[]
                    fatal: string[]
                    video?: HTMLVideoElement
                  }
                >
              }
            ).demo ?? {}
          return Object.fromEntries(
            Object.entries(demo).map(([name, state]) => [
              name,
              {
                record: state.refresher?.record,
                refreshCount: state.refresher?.refreshCount,
                errors: state.errors,
                fatal: state.fatal,
                currentTime: state.video?.currentTime,
                mediaError: state.video?.error?.message,
                // what the element itself says: loading, buffered, playing or not
                element: state.video && {
                  connected: state.video.isConnected,
                  readyState: state.video.readyState,
                  networkState: state.video.networkState,
                  paused: state.video.paused,
                  muted: state.video.muted,
                  src: state.video.currentSrc,
                  buffered: Array.from({ length: state.video.buffered.length }, (_, i) => [
                    state.video?.buffered.start(i),
                    state.video?.buffered.end(i),
                  ]),
                },
              },
            ]),
          )
        })
        .catch((error: unknown) => String(error))
      await testInfo.attach('player-state.json', json(states))
      await testInfo.attach('console.txt', {
        body: consoleLines.join('\n'),
        contentType: 'text/plain',
      })
    }
  },
})
export { expect }
