// Stream limits (issue 33), limit 2, reject-newest, with clients nobody here wrote and a page as a
// user writes it: one viewer (a JWT's sub) on the stack's stream-limited backend (STREAMS). Judged
// by nginx's log, sampled every second over the run: never more than two of that viewer's streams
// served. Also: a page that keeps its last token and stops calling /token frees its slot within
// its token's lifetime plus STREAM_GRACE, and the viewer's waiting device is then admitted.
import { expect, test } from '../support/browser-witness.ts'
import { cdnRequests } from '../support/cdn-log.ts'
import { probe, waitForPlayback, watchPlayback } from '../support/demo.ts'
import { type ClientRun, ffmpeg, finishBy, mediaSeconds, vlc } from '../support/hls-clients.ts'
import { PORTS, STREAMS } from '../support/stack.ts'
import {
  newViewer,
  openViewerPage,
  servedPerSecond,
  sessionUrlOf,
  startSession,
} from '../support/stream-viewer.ts'

const BACKEND = `http://127.0.0.1:${PORTS.streams}`
const PLAY_MS = 30_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('limit 2: an ffmpeg and a VLC session of one viewer play, the third is refused (409), and the CDN never serves more than two of their streams at once', async () => {
  test.setTimeout(90_000)
  const { jwt, videos } = newViewer('streams', ['ffmpeg', 'vlc', 'third'])
  const [ffmpegVideo = '', vlcVideo = '', thirdVideo = ''] = videos
  const urls: string[] = []
  for (const video of [ffmpegVideo, vlcVideo])
    urls.push(await sessionUrlOf(await startSession(BACKEND, video, jwt)))
  const runs: ClientRun[] = [ffmpeg(urls[0] ?? ''), vlc(urls[1] ?? '')]
  const until = Date.now() + PLAY_MS
  // the third, while both play
  await sleep(5_000)
  const third = await startSession(BACKEND, thirdVideo, jwt)
  expect(third.status).toBe(409)
  expect(await third.json()).toMatchObject({ code: 'stream_limit', limit: STREAMS.limit })
  await Promise.all(runs.map((run) => finishBy(run, until)))
  for (const [index, run] of runs.entries())
    await test.info().attach(`client-${index}.log`, { body: run.output().slice(-20_000) })

  const served = servedPerSecond(videos, STREAMS.limit)
  console.log(`ffmpeg + VLC sessions: ${JSON.stringify(served)}`)
  await test.info().attach('cdn.json', { body: JSON.stringify(served, null, 2) })
  expect(served.most).toBeLessThanOrEqual(STREAMS.limit)
  // the check bites: both admitted streams were served together for a while
  expect(served.atLimit).toBeGreaterThan(15)
  expect(cdnRequests(thirdVideo)).toEqual([])
  // both admitted streams really played
  for (const run of runs) expect(mediaSeconds(run.file)).toBeGreaterThan(15)
})

test('limit 2: an hls.js page, then an ffmpeg session of one viewer play; their VLC session is refused (409); the page renews its one stream past two refreshes, never more than two streams served', async ({
  page,
}) => {
  test.setTimeout(90_000)
  const { jwt, videos } = newViewer('streams', ['page', 'ffmpeg', 'vlc'])
  const [pageVideo = '', ffmpegVideo = '', vlcVideo = ''] = videos
  const viewer = await openViewerPage(page, {
    origin: BACKEND,
    video: pageVideo,
    jwt,
    expire: 20,
    lead: 6,
    // live: the page asks the CDN every 2 s (a VOD page buffers the whole video at once)
    type: 'live',
  })
  try {
    await waitForPlayback(page, 'hlsjs')
    const client = ffmpeg(await sessionUrlOf(await startSession(BACKEND, ffmpegVideo, jwt)))
    const until = Date.now() + PLAY_MS
    await sleep(3_000)
    // VLC's session: the third stream of the viewer
    const third = await startSession(BACKEND, vlcVideo, jwt)
    const refusal = (await third.json()) as { code: string; limit: number; streams: unknown[] }
    expect(third.status).toBe(409)
    expect(refusal).toMatchObject({ code: 'stream_limit', limit: STREAMS.limit })
    expect(refusal.streams).toHaveLength(STREAMS.limit)
    // past two refreshes of 20-s tokens refreshed 6 s early
    const run = await watchPlayback(page, 'hlsjs', 29_000)
    await finishBy(client, until)
    await test.info().attach('ffmpeg.log', { body: client.output().slice(-20_000) })

    const state = await probe(page, 'hlsjs')
    const served = servedPerSecond(videos, STREAMS.limit)
    const figures = {
      ...served,
      tokenAnswers: viewer.answers.map(({ status, sent }) => `${status}${sent ? ' renew' : ''}`),
      pageAdvanced: Math.round(run.advanced),
      longestStallMs: run.longestStallMs,
      ffmpegSeconds: mediaSeconds(client.file),
    }
    console.log(`hls.js page + ffmpeg, VLC refused: ${JSON.stringify(figures)}`)
    await test.info().attach('figures.json', { body: JSON.stringify(figures, null, 2) })
    expect(served.most).toBeLessThanOrEqual(STREAMS.limit)
    // the check bites: both admitted streams were served together for a while
    expect(served.atLimit).toBeGreaterThan(15)
    expect(cdnRequests(vlcVideo)).toEqual([])
    // the page: one stream, renewed by each refresh (no 409), still playing
    const [first, ...refreshes] = viewer.answers
    expect(viewer.answers.map((answer) => answer.status)).toEqual(viewer.answers.map(() => 200))
    expect(refreshes.length).toBeGreaterThanOrEqual(2)
    expect(first?.stream).toMatch(/^[A-Za-z0-9_-]{22,64}$/)
    for (const refresh of refreshes) {
      expect(refresh.sent).toBe(first?.stream)
      expect(refresh.stream).toBe(first?.stream)
    }
    expect(state.errors).toEqual([])
    expect(state.fatal).toEqual([])
    expect(run.advanced).toBeGreaterThan(25)
    expect(figures.ffmpegSeconds).toBeGreaterThan(15)
  } finally {
    await viewer.site.close()
  }
})

test("a page that keeps its last token and stops calling /token frees the viewer's slot within its token's lifetime plus STREAM_GRACE; the waiting device is then admitted", async ({
  page,
}) => {
  test.setTimeout(60_000)
  // a single-screen plan: one stream
  const { jwt, videos } = newViewer('streams', ['idle', 'waiting'], { max_streams: 1 })
  const [pageVideo = '', waitingVideo = ''] = videos
  // the page's refreshes never reach the backend after its first token
  let answered = 0
  await page.route(`${BACKEND}/token?*`, (route) =>
    answered++ === 0 ? route.continue() : route.abort('connectionreset'),
  )
  const viewer = await openViewerPage(page, {
    origin: BACKEND,
    video: pageVideo,
    jwt,
    expire: 10,
    lead: 4,
    type: 'live',
  })
  try {
    await waitForPlayback(page, 'hlsjs')
    const expiresMs = (viewer.answers[0]?.expires ?? 0) * 1000
    expect(expiresMs).toBeGreaterThan(Date.now())
    // every second: the viewer's other device asks for a session, and the kept URL is played on
    // (as a modified page would: the package itself stops loading with an expiring token)
    const asked: { at: number; status: number }[] = []
    const kept: { at: number; status: number }[] = []
    let admitted: Response | undefined
    while (!admitted && Date.now() < expiresMs + STREAMS.graceSeconds * 1000 + 10_000) {
      const playlist = await fetch(viewer.answers[0]?.url ?? '')
      kept.push({ at: Date.now(), status: playlist.status })
      const answer = await startSession(BACKEND, waitingVideo, jwt)
      asked.push({ at: Date.now(), status: answer.status })
      if (answer.status === 200) admitted = answer
      else await sleep(1000)
    }
    const admittedAt = asked.at(-1)?.at ?? 0
    const pageServed = cdnRequests(pageVideo)
    const lastServed = Math.max(0, ...pageServed.filter((r) => r.status === 200).map((r) => r.at))
    const figures = {
      admittedAfterExpiryMs: admittedAt - expiresMs,
      graceMs: STREAMS.graceSeconds * 1000,
      refusedAsks: asked.filter((answer) => answer.status === 409).length,
      pageLastMediaAfterExpiryMs: lastServed - expiresMs,
      pageRefusedAtCdn: pageServed.filter((r) => r.status === 403 || r.status === 410).length,
      keptUrl: kept.map(
        ({ at, status }) => `${Math.round((at - expiresMs) / 100) / 10} s ${status}`,
      ),
    }
    console.log(`page without refreshes: ${JSON.stringify(figures)}`)
    await test.info().attach('figures.json', { body: JSON.stringify(figures, null, 2) })
    // refused while the page's token lived, admitted within its lifetime plus the grace
    expect(asked[0]?.status).toBe(409)
    expect(admitted?.status).toBe(200)
    const held = asked.filter((answer) => answer.at < expiresMs + figures.graceMs - 1000)
    expect(held.every((answer) => answer.status === 409)).toBe(true)
    expect(figures.admittedAfterExpiryMs).toBeLessThanOrEqual(figures.graceMs + 1500)
    // the page lost its media at expiry: its kept URL served until then, refused after
    expect(figures.pageLastMediaAfterExpiryMs).toBeLessThan(1000)
    const before = kept.filter(({ at }) => at < expiresMs - 1000)
    const after = kept.filter(({ at }) => at > expiresMs + 1000)
    expect(before.length).toBeGreaterThan(0)
    expect(before.every(({ status }) => status === 200)).toBe(true)
    expect(after.length).toBeGreaterThan(0)
    expect(after.every(({ status }) => status === 403 || status === 410)).toBe(true)
    // the admitted device plays: its master playlist comes through the CDN
    const master = await fetch(await sessionUrlOf(admitted as Response))
    expect(master.status).toBe(200)
  } finally {
    await viewer.site.close()
  }
})
