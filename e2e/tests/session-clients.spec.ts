// Edge sessions with clients where none of our JavaScript runs: ffmpeg and VLC, paced in real
// time, play a session URL to the end while every CDN URL they are given lives 10 s; the same
// clients on a plain 10-s token fail. Judged by what they read (ffprobe) and by nginx's log,
// never by exit codes (both skip what they cannot open and still exit 0).
import { expect, test } from '@playwright/test'
import { cdnRequests } from '../support/cdn-log.ts'
import {
  type ClientRun,
  ffmpeg,
  mediaSeconds,
  plainUrl,
  sessionUrl,
  uniqueVideo,
  vlc,
} from '../support/hls-clients.ts'
import { SESSION } from '../support/stack.ts'

const VOD_SECONDS = 80

/** What the CDN saw of one video: statuses and the distinct expiries of the URLs. */
const cdnView = (video: string) => {
  const requests = cdnRequests(video)
  return {
    requests: requests.length,
    statuses: [...new Set(requests.map((request) => request.status))].sort(),
    expiries: new Set(requests.map((request) => request.expires)).size,
  }
}

const finished = async (run: ClientRun, label: string) => {
  await run.exited
  await test.info().attach(`${label}.log`, { body: run.output().slice(-20_000) })
  return mediaSeconds(run.file)
}

test('ffmpeg and VLC play the 80-s VOD to the end, and ffmpeg 60 s of live, through sessions of 10-s CDN URLs; on plain 10-s tokens every client fails', async () => {
  test.setTimeout(170_000)
  // all six clients at once, each on a video name of its own: one real-time wait for all
  const videos = {
    ffmpegSession: uniqueVideo('ffmpeg-session'),
    ffmpegPlain: uniqueVideo('ffmpeg-plain'),
    vlcSession: uniqueVideo('vlc-session'),
    vlcPlain: uniqueVideo('vlc-plain'),
    liveSession: uniqueVideo('ffmpeg-live-session'),
    livePlain: uniqueVideo('ffmpeg-live-plain'),
  }
  const [ffSession, vlcSession, ffPlain, vlcPlain, liveSession, livePlain] = await Promise.all([
    sessionUrl(videos.ffmpegSession).then((url) => ffmpeg(url)),
    sessionUrl(videos.vlcSession).then((url) => vlc(url)),
    plainUrl(videos.ffmpegPlain, 'vod', SESSION.leafSeconds).then((url) => ffmpeg(url)),
    plainUrl(videos.vlcPlain, 'vod', SESSION.leafSeconds).then((url) => vlc(url)),
    sessionUrl(videos.liveSession, 'live').then((url) => ffmpeg(url, { seconds: 60 })),
    plainUrl(videos.livePlain, 'live', SESSION.leafSeconds).then((url) =>
      ffmpeg(url, { seconds: 60 }),
    ),
  ])
  // a live control never ends on its own (its playlist keeps failing): stopped with the session
  void liveSession.exited.then(() => livePlain.process.kill('SIGINT'))
  const [
    ffSessionSeconds,
    vlcSessionSeconds,
    ffPlainSeconds,
    vlcPlainSeconds,
    liveSeconds,
    livePlainSeconds,
  ] = await Promise.all([
    finished(ffSession, 'ffmpeg-session'),
    finished(vlcSession, 'vlc-session'),
    finished(ffPlain, 'ffmpeg-plain'),
    finished(vlcPlain, 'vlc-plain'),
    finished(liveSession, 'ffmpeg-live-session'),
    finished(livePlain, 'ffmpeg-live-plain'),
  ])
  const seen = Object.fromEntries(
    Object.entries(videos).map(([name, video]) => [name, cdnView(video)]),
  )
  const read = {
    ffSessionSeconds,
    vlcSessionSeconds,
    ffPlainSeconds,
    vlcPlainSeconds,
    liveSeconds,
    livePlainSeconds,
  }
  await test.info().attach('cdn.json', { body: JSON.stringify({ seen, read }, null, 2) })

  // the sessions: the whole VOD (60 s of live), every request at the CDN a 200, many short URLs
  expect(ffSessionSeconds).toBeGreaterThan(VOD_SECONDS - 2)
  expect(vlcSessionSeconds).toBeGreaterThan(VOD_SECONDS - 4)
  expect(liveSeconds).toBeGreaterThan(58)
  for (const name of ['ffmpegSession', 'vlcSession', 'liveSession'] as const) {
    expect(seen[name]?.statuses, name).toEqual([200])
    expect(seen[name]?.requests, name).toBeGreaterThan(30)
    expect(seen[name]?.expiries, name).toBeGreaterThanOrEqual(6)
  }
  // the controls: the same clients, paced the same, die with the token
  expect(ffPlainSeconds).toBeLessThan(VOD_SECONDS * 0.75)
  expect(vlcPlainSeconds).toBeLessThan(VOD_SECONDS * 0.75)
  expect(livePlainSeconds).toBeLessThan(40)
  for (const name of ['ffmpegPlain', 'vlcPlain', 'livePlain'] as const)
    expect(seen[name]?.statuses, name).toContain(410)
})
