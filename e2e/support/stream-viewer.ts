// One viewer of the stream-limited backends (stack.ts: STREAMS): their JWT, their session starts,
// their hls.js page, and what nginx served of their videos, second by second.
import { createHmac } from 'node:crypto'
import type { Page } from '@playwright/test'
import { cdnRequests } from './cdn-log.ts'
import { uniqueVideo } from './hls-clients.ts'
import { STREAMS } from './stack.ts'
import { serveUserPage, type UserPage } from './user-page.ts'

/**
 * A viewer JWT (HS256) for `sub`, valid for an hour, with `claims` added (`max_streams`).
 *
 * @example
 * ```ts
 * viewerJwt('viewer-1', { max_streams: 1 })
 * ```
 */
export function viewerJwt(sub: string, claims: Record<string, unknown> = {}): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const exp = Math.floor(Date.now() / 1000) + 3600
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub, videos: '*', exp, ...claims })}`
  return `${body}.${createHmac('sha256', STREAMS.jwtSecret).update(body).digest('base64url')}`
}

/**
 * A new viewer for one test: their JWT and a video of its own per role (each client's CDN log is
 * then its own).
 *
 * @example
 * ```ts
 * const { jwt, videos } = newViewer('evict', ['oldest', 'second', 'page'])
 * ```
 */
export function newViewer(
  label: string,
  roles: string[],
  claims: Record<string, unknown> = {},
): { jwt: string; videos: string[] } {
  return {
    jwt: viewerJwt(`viewer-${uniqueVideo(label)}`, claims),
    videos: roles.map((role) => uniqueVideo(`${label}-${role}`)),
  }
}

/** `GET /session` of the viewer (`jwt`) for `video` on the backend at `origin`. */
export function startSession(origin: string, video: string, jwt: string): Promise<Response> {
  return fetch(`${origin}/session?video=${video}&type=vod`, {
    headers: { authorization: `Bearer ${jwt}` },
  })
}

/** The session URL of an admitted `GET /session`; fails with its answer otherwise. */
export async function sessionUrlOf(answer: Response): Promise<string> {
  if (answer.status !== 200)
    throw new Error(`GET /session: ${answer.status} ${await answer.text()}`)
  return ((await answer.json()) as { session_url: string }).session_url
}

/** One `/token` answer the viewer's page got. */
export interface TokenAnswer {
  at: number
  status: number
  /** The `stream` the request sent back (absent on the first). */
  sent: string | null
  /** The record's `stream` and `url` (200) and `expires` (s). */
  stream?: string | undefined
  url?: string | undefined
  expires?: number | undefined
}

/** The viewer's hls.js page (pages/hlsjs-viewer.ts) and its `/token` answers, in order. */
export interface ViewerPage {
  site: UserPage
  answers: TokenAnswer[]
}

/**
 * Opens the viewer's hls.js page on `page`: `getToken: (context) => fetchToken(url, { ...context,
 * headers })`, the JWT in `Authorization`, tokens of `expire` s refreshed `lead` s before expiry.
 *
 * @example
 * ```ts
 * const viewer = await openViewerPage(page, { origin, video, jwt, expire: 20, lead: 6 })
 * ```
 */
export async function openViewerPage(
  page: Page,
  options: {
    origin: string
    video: string
    jwt: string
    expire: number
    lead: number
    /** `live`: a playlist reload and a new segment every 2 s, all through the CDN (VOD: all at once). */
    type?: 'vod' | 'live'
  },
): Promise<ViewerPage> {
  const site = await serveUserPage('hlsjs-viewer')
  const answers: TokenAnswer[] = []
  page.on('response', async (response) => {
    const url = new URL(response.url())
    if (url.origin !== options.origin || url.pathname !== '/token') return
    if (response.request().method() !== 'GET') return
    const answer: TokenAnswer = {
      at: Date.now(),
      status: response.status(),
      sent: url.searchParams.get('stream'),
    }
    answers.push(answer)
    const record = (await response.json().catch(() => ({}))) as {
      stream?: string
      url?: string
      expires?: number
    }
    answer.stream = record.stream
    answer.url = record.url
    answer.expires = record.expires
  })
  const type = options.type ?? 'vod'
  const token = `${options.origin}/token?video=${options.video}&type=${type}&expire=${options.expire}`
  await page.goto(
    `${site.url}?${new URLSearchParams({ token, lead: String(options.lead), jwt: options.jwt })}`,
  )
  return { site, answers }
}

/** What {@link servedPerSecond} found. */
export interface ServedPerSecond {
  /** Seconds from the first 200 of `videos` to the last. */
  seconds: number
  /** The most videos being served in one second. */
  most: number
  /** Seconds in which exactly `limit` videos were being served. */
  atLimit: number
  /** The 200s in all. */
  requests: number
}

/**
 * nginx's log of `videos`, sampled every second from their first 200 to their last: a video is
 * being served in a second when it got a 200 within the `windowSeconds` before it (a real-time
 * client of the 2-s segments asks about once per segment).
 *
 * @example
 * ```ts
 * expect(servedPerSecond(videos, 2).most).toBeLessThanOrEqual(2)
 * ```
 */
export function servedPerSecond(
  videos: string[],
  limit: number,
  windowSeconds = 3,
): ServedPerSecond {
  const served = videos.flatMap((video) =>
    cdnRequests(video)
      .filter((request) => request.status === 200)
      .map((request) => ({ video, second: Math.floor(request.at / 1000) })),
  )
  const seconds = served.map(({ second }) => second)
  const [from, to] = [Math.min(...seconds), Math.max(...seconds)]
  let most = 0
  let atLimit = 0
  for (let second = from; second <= to; second++) {
    const count = new Set(
      served
        .filter((request) => request.second > second - windowSeconds && request.second <= second)
        .map((request) => request.video),
    ).size
    most = Math.max(most, count)
    if (count === limit) atLimit += 1
  }
  return { seconds: served.length ? to - from + 1 : 0, most, atLimit, requests: served.length }
}
