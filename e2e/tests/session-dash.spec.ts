// DASH on edge sessions with clients where none of our JavaScript runs (issue 32): ffmpeg and
// VLC (paced in real time), Shaka and dash.js as their own docs set them up in Chromium, all on
// the 80-s DASH VOD through sessions of 10-s CDN URLs, and ffmpeg on 40 s of live DASH; each
// again on a plain 10-s `GET /token?format=dash` URL, the control, which must stop short. All
// at once: one real-time wait. Judged by what they read (ffprobe of their copies, the players'
// currentTime) and by nginx's log, never by exit codes.
import { expect, test } from '../support/browser-witness.ts'
import { cdnRequests } from '../support/cdn-log.ts'
import {
  attachFigures,
  type DashPage,
  type DashPlayer,
  dashErrors,
  longestStallMs,
  openDashPage,
  watchDash,
} from '../support/dash-pages.ts'
import {
  type ClientRun,
  ffmpeg,
  finishBy,
  mediaSeconds,
  plainUrl,
  sessionUrl,
  uniqueVideo,
  vlc,
} from '../support/hls-clients.ts'
import { SESSION } from '../support/stack.ts'

const VOD_SECONDS = 80
const LIVE_SECONDS = 40
/** Startup and a stall or two: the VOD ends well within this. */
const WINDOW_MS = 115_000

/** A segment number past the VOD's 40 (ffmpeg's DASH demuxer asks for one more audio segment: 404). */
const PAST_THE_END = /\/dash\/chunk-\d+-0(4[1-9]|[5-9]\d)\.m4s$/

/** What the CDN saw of one video: statuses (but a 404 past the end), the distinct expiries. */
const cdnView = (video: string) => {
  const requests = cdnRequests(video).filter(
    (request) => !(request.status === 404 && PAST_THE_END.test(request.path)),
  )
  return {
    requests: requests.length,
    statuses: [...new Set(requests.map((request) => request.status))].sort(),
    expiries: new Set(requests.map((request) => request.expires)).size,
  }
}

test('ffmpeg, VLC, Shaka and dash.js play the 80-s DASH VOD to the end through sessions of 10-s CDN URLs, ffmpeg 40 s of live DASH; on plain 10-s tokens each stops short', async ({
  browser,
}) => {
  test.setTimeout(WINDOW_MS + 60_000)
  const leaf = SESSION.leafSeconds
  const video = (label: string) => uniqueVideo(`dash-${label}`)
  const videos = {
    ffmpegSession: video('ffmpeg-session'),
    vlcSession: video('vlc-session'),
    liveSession: video('ffmpeg-live-session'),
    ffmpegPlain: video('ffmpeg-plain'),
    vlcPlain: video('vlc-plain'),
    shakaSession: video('shaka-session'),
    dashjsSession: video('dashjs-session'),
    shakaPlain: video('shaka-plain'),
    dashjsPlain: video('dashjs-plain'),
  }
  const session = (name: keyof typeof videos, type: 'vod' | 'live' = 'vod') =>
    sessionUrl(videos[name], type, {}, 'dash')
  const plain = (name: keyof typeof videos) => plainUrl(videos[name], 'vod', leaf, 'dash')

  // the pages first (their bundle takes seconds to start), then every client at once
  const page = async (player: DashPlayer, src: Promise<string>, label: string) =>
    openDashPage(browser, player, await src, label)
  const pages: DashPage[] = await Promise.all([
    page('shaka', session('shakaSession'), 'shaka session'),
    page('dashjs', session('dashjsSession'), 'dash.js session'),
    page('shaka', plain('shakaPlain'), 'shaka plain'),
    page('dashjs', plain('dashjsPlain'), 'dash.js plain'),
  ])
  const until = Date.now() + WINDOW_MS
  const clients = {
    ffmpegSession: ffmpeg(await session('ffmpegSession')),
    vlcSession: vlc(await session('vlcSession')),
    liveSession: ffmpeg(await session('liveSession', 'live'), { seconds: LIVE_SECONDS }),
    ffmpegPlain: ffmpeg(await plain('ffmpegPlain')),
    vlcPlain: vlc(await plain('vlcPlain')),
  } satisfies Record<string, ClientRun>
  try {
    await Promise.all([
      watchDash(pages, until, pages.slice(0, 2)),
      ...Object.values(clients).map((client) => finishBy(client, until)),
    ])
    const read = Object.fromEntries(
      Object.entries(clients).map(([name, client]) => [name, mediaSeconds(client.file)]),
    ) as Record<keyof typeof clients, number>
    const errors = await Promise.all(pages.map(dashErrors))
    const played = pages.map((run, i) => ({
      label: run.label,
      time: run.samples.at(-1)?.time ?? 0,
      ended: run.samples.at(-1)?.ended ?? false,
      longestStallMs: longestStallMs(run),
      errors: errors[i],
    }))
    const seen = Object.fromEntries(
      Object.entries(videos).map(([name, id]) => [name, cdnView(id)]),
    ) as Record<keyof typeof videos, ReturnType<typeof cdnView>>
    await attachFigures('dash-clients', {
      read,
      played,
      seen,
      logs: Object.fromEntries(
        Object.entries(clients).map(([name, client]) => [name, client.output().slice(-3000)]),
      ),
    })
    const [shakaSession, dashjsSession, shakaPlain, dashjsPlain] = played

    // the sessions: the whole VOD, every request at the CDN a 200, many short-lived URLs
    expect.soft(read.ffmpegSession, 'ffmpeg session').toBeGreaterThan(VOD_SECONDS - 2)
    expect.soft(read.vlcSession, 'VLC session').toBeGreaterThan(VOD_SECONDS - 4)
    expect.soft(read.liveSession, 'ffmpeg live session').toBeGreaterThan(LIVE_SECONDS - 2)
    for (const run of [shakaSession, dashjsSession]) {
      expect.soft(run?.ended, `${run?.label} ended (currentTime ${run?.time})`).toBe(true)
      expect.soft(run?.errors, `${run?.label} errors`).toEqual([])
    }
    for (const name of [
      'ffmpegSession',
      'vlcSession',
      'liveSession',
      'shakaSession',
      'dashjsSession',
    ] as const) {
      expect.soft(seen[name].statuses, name).toEqual([200])
      expect.soft(seen[name].requests, name).toBeGreaterThan(20)
      expect.soft(seen[name].expiries, name).toBeGreaterThanOrEqual(3)
    }
    // the controls: the same clients on one 10-s URL die with it, and nginx said 410
    expect.soft(read.ffmpegPlain, 'ffmpeg plain').toBeLessThan(VOD_SECONDS * 0.75)
    expect.soft(read.vlcPlain, 'VLC plain').toBeLessThan(VOD_SECONDS * 0.75)
    for (const run of [shakaPlain, dashjsPlain])
      expect.soft(run?.time ?? 0, `${run?.label} stops short`).toBeLessThan(VOD_SECONDS * 0.75)
    for (const name of ['ffmpegPlain', 'vlcPlain', 'shakaPlain', 'dashjsPlain'] as const)
      expect.soft(seen[name].statuses, name).toContain(410)
  } finally {
    for (const client of Object.values(clients)) client.process.kill('SIGKILL')
    await Promise.all(pages.map((run) => run.page.close().catch(() => undefined)))
  }
})
