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

test('ffmpeg and VLC play the 80-s VOD to the end through a session of 10-s CDN URLs; on a plain 10-s token both fail', async () => {
  test.setTimeout(170_000)
  const videos = {
    ffmpegSession: uniqueVideo('ffmpeg-session'),
    ffmpegPlain: uniqueVideo('ffmpeg-plain'),
    vlcSession: uniqueVideo('vlc-session'),
    vlcPlain: uniqueVideo('vlc-plain'),
  }
  const [ffSession, vlcSession, ffPlain, vlcPlain] = await Promise.all([
    sessionUrl(videos.ffmpegSession).then((url) => ffmpeg(url)),
    sessionUrl(videos.vlcSession).then((url) => vlc(url)),
    plainUrl(videos.ffmpegPlain, 'vod', SESSION.leafSeconds).then((url) => ffmpeg(url)),
    plainUrl(videos.vlcPlain, 'vod', SESSION.leafSeconds).then((url) => vlc(url)),
  ])
  const [ffSessionSeconds, vlcSessionSeconds, ffPlainSeconds, vlcPlainSeconds] = await Promise.all([
    finished(ffSession, 'ffmpeg-session'),
    finished(vlcSession, 'vlc-session'),
    finished(ffPlain, 'ffmpeg-plain'),
    finished(vlcPlain, 'vlc-plain'),
  ])
  const seen = Object.fromEntries(
    Object.entries(videos).map(([name, video]) => [name, cdnView(video)]),
  )
  await test.info().attach('cdn.json', {
    body: JSON.stringify(
      { seen, ffSessionSeconds, vlcSessionSeconds, ffPlainSeconds, vlcPlainSeconds },
      null,
      2,
    ),
  })

  // the session: the whole VOD, every request at the CDN a 200, through many short URLs
  expect(ffSessionSeconds).toBeGreaterThan(VOD_SECONDS - 2)
  expect(vlcSessionSeconds).toBeGreaterThan(VOD_SECONDS - 4)
  for (const name of ['ffmpegSession', 'vlcSession'] as const) {
    expect(seen[name]?.statuses, name).toEqual([200])
    expect(seen[name]?.requests, name).toBeGreaterThan(VOD_SECONDS / 2)
    expect(seen[name]?.expiries, name).toBeGreaterThanOrEqual(6)
  }
  // the control: the same clients, paced the same, die with the token
  expect(ffPlainSeconds).toBeLessThan(VOD_SECONDS * 0.75)
  expect(vlcPlainSeconds).toBeLessThan(VOD_SECONDS * 0.75)
  expect(seen.ffmpegPlain?.statuses).toContain(410)
  expect(seen.vlcPlain?.statuses).toContain(410)
})

test('ffmpeg reads 60 s of a live stream through a session; on a plain 10-s token it does not', async () => {
  test.setTimeout(120_000)
  const session = uniqueVideo('ffmpeg-live-session')
  const plain = uniqueVideo('ffmpeg-live-plain')
  const [live, control] = await Promise.all([
    sessionUrl(session, 'live').then((url) => ffmpeg(url, { seconds: 60 })),
    plainUrl(plain, 'live', SESSION.leafSeconds).then((url) => ffmpeg(url, { seconds: 60 })),
  ])
  // a control that never ends on its own (live playlists keep failing): stopped with the session
  const liveSeconds = await finished(live, 'ffmpeg-live-session')
  control.process.kill('SIGINT')
  const controlSeconds = await finished(control, 'ffmpeg-live-plain')
  const seenSession = cdnView(session)
  const seenPlain = cdnView(plain)
  await test.info().attach('cdn.json', {
    body: JSON.stringify({ seenSession, seenPlain, liveSeconds, controlSeconds }, null, 2),
  })
  expect(liveSeconds).toBeGreaterThan(58)
  expect(seenSession.statuses).toEqual([200])
  expect(seenSession.expiries).toBeGreaterThanOrEqual(6)
  expect(controlSeconds).toBeLessThan(40)
  expect(seenPlain.statuses).toContain(410)
})
