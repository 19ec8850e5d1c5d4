// Stream limits in the session lane, with clients nobody here wrote: one viewer (a JWT's sub) on
// the stack's stream-limited backend (STREAM_LIMIT=2) starts an ffmpeg session and a VLC session,
// both paced in real time; a third session is refused with the typed 409. Judged by nginx's log,
// sampled every second over the run: never more than two of that viewer's streams served.
import { createHmac } from 'node:crypto'
import { expect, test } from '../support/browser-witness.ts'
import { cdnRequests } from '../support/cdn-log.ts'
import {
  type ClientRun,
  ffmpeg,
  finishBy,
  mediaSeconds,
  uniqueVideo,
  vlc,
} from '../support/hls-clients.ts'
import { PORTS, STREAMS } from '../support/stack.ts'

const BACKEND = `http://127.0.0.1:${PORTS.streams}`
const PLAY_MS = 30_000

/** A viewer JWT (HS256) for `sub`, valid for an hour. */
const viewerJwt = (sub: string) => {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub, videos: '*', exp: Math.floor(Date.now() / 1000) + 3600 })}`
  return `${body}.${createHmac('sha256', STREAMS.jwtSecret).update(body).digest('base64url')}`
}

/** `GET /session` of the viewer for `video`. */
const issue = (video: string, jwt: string) =>
  fetch(`${BACKEND}/session?video=${video}&type=vod`, {
    headers: { authorization: `Bearer ${jwt}` },
  })

test('limit 2: an ffmpeg and a VLC session of one viewer play, the third is refused (409), and the CDN never serves more than two of their streams at once', async () => {
  test.setTimeout(90_000)
  const jwt = viewerJwt(`viewer-${uniqueVideo('streams')}`)
  const videos = ['ffmpeg', 'vlc', 'third'].map((label) => uniqueVideo(`streams-${label}`))
  const [ffmpegVideo = '', vlcVideo = '', thirdVideo = ''] = videos
  const urls: string[] = []
  for (const video of [ffmpegVideo, vlcVideo]) {
    const answer = await issue(video, jwt)
    expect(answer.status, await answer.clone().text()).toBe(200)
    urls.push(((await answer.json()) as { session_url: string }).session_url)
  }
  const runs: ClientRun[] = [ffmpeg(urls[0] ?? ''), vlc(urls[1] ?? '')]
  const until = Date.now() + PLAY_MS
  // the third, while both play
  await new Promise((resolve) => setTimeout(resolve, 5_000))
  const third = await issue(thirdVideo, jwt)
  expect(third.status).toBe(409)
  expect(await third.json()).toMatchObject({ code: 'stream_limit', limit: STREAMS.limit })
  await Promise.all(runs.map((run) => finishBy(run, until)))
  for (const [index, run] of runs.entries())
    await test.info().attach(`client-${index}.log`, { body: run.output().slice(-20_000) })

  // nginx's view, second by second: how many of the viewer's videos got media
  const served = videos.flatMap((video) =>
    cdnRequests(video)
      .filter((request) => request.status === 200)
      .map((request) => ({ video, second: Math.floor(request.at / 1000) })),
  )
  const perSecond = new Map<number, Set<string>>()
  for (const { video, second } of served)
    perSecond.set(second, (perSecond.get(second) ?? new Set()).add(video))
  const most = Math.max(0, ...[...perSecond.values()].map((set) => set.size))
  await test.info().attach('cdn.json', {
    body: JSON.stringify({ seconds: perSecond.size, most, requests: served.length }, null, 2),
  })
  expect(most).toBeLessThanOrEqual(STREAMS.limit)
  expect(cdnRequests(thirdVideo)).toEqual([])
  // both admitted streams really played
  for (const run of runs) expect(mediaSeconds(run.file)).toBeGreaterThan(15)
})
