// Stream limits (issue 33), limit 2, evict-oldest: one viewer (a JWT's sub) on the stack's evicting
// instance (STREAMS, short session leaves) plays two ffmpeg sessions, then opens an hls.js page as
// a user writes it. The page's stream is admitted and the oldest session is ended: nginx serves
// its last media at most one leaf lifetime + 1 s after the page's first token, its next leaf is
// a 403 `stream_ended`, the other session plays on, and the page plays without a stall.
import { expect, test } from '../support/browser-witness.ts'
import { cdnRequests } from '../support/cdn-log.ts'
import { probe, waitForPlayback, watchPlayback } from '../support/demo.ts'
import { ffmpeg, finishBy, mediaSeconds } from '../support/hls-clients.ts'
import { PORTS, STREAMS } from '../support/stack.ts'
import {
  newViewer,
  openViewerPage,
  servedPerSecond,
  sessionUrlOf,
  startSession,
} from '../support/stream-viewer.ts'

const BACKEND = `http://127.0.0.1:${PORTS.streamsEvict}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('evict-oldest: a third stream (an hls.js page) ends the oldest session within one leaf lifetime + 1 s and plays without a stall', async ({
  page,
}) => {
  test.setTimeout(90_000)
  const { jwt, videos } = newViewer('evict', ['oldest', 'second', 'page'])
  const [oldestVideo = '', secondVideo = '', pageVideo = ''] = videos
  const oldestUrl = await sessionUrlOf(await startSession(BACKEND, oldestVideo, jwt))
  const oldest = ffmpeg(oldestUrl)
  await sleep(1000)
  const second = ffmpeg(await sessionUrlOf(await startSession(BACKEND, secondVideo, jwt)))
  const until = Date.now() + 36_000
  await sleep(6000)

  const viewer = await openViewerPage(page, {
    origin: BACKEND,
    video: pageVideo,
    jwt,
    expire: 20,
    lead: 6,
  })
  try {
    await waitForPlayback(page, 'hlsjs')
    // past one refresh of the page's 20-s tokens
    const run = await watchPlayback(page, 'hlsjs', 20_000)
    const thirdAt = viewer.answers[0]?.at ?? 0
    // the evicted session's next leaf: refused for good
    const leaf = await fetch(oldestUrl)
    const ended = (await leaf.json().catch(() => ({}))) as { code?: string; reason?: string }
    await Promise.all([oldest, second].map((client) => finishBy(client, until)))
    await test.info().attach('ffmpeg-oldest.log', { body: oldest.output().slice(-20_000) })

    const served = (video: string) =>
      cdnRequests(video)
        .filter((request) => request.status === 200)
        .map((request) => request.at)
    const state = await probe(page, 'hlsjs')
    const figures = {
      oldestLastMediaAfterThirdMs: Math.max(0, ...served(oldestVideo)) - thirdAt,
      leafLifetimeMs: STREAMS.evictLeafSeconds * 1000,
      secondServedAfterThird: served(secondVideo).filter((at) => at > thirdAt).length,
      pageAdvanced: Math.round(run.advanced),
      pageLongestStallMs: run.longestStallMs,
      tokenAnswers: viewer.answers.map(({ status }) => status),
      perSecond: servedPerSecond(videos, STREAMS.limit),
      oldestLeaf: { status: leaf.status, ...ended },
      oldestSeconds: mediaSeconds(oldest.file),
      secondSeconds: mediaSeconds(second.file),
    }
    console.log(`evict-oldest: ${JSON.stringify(figures)}`)
    await test.info().attach('figures.json', { body: JSON.stringify(figures, null, 2) })

    expect(viewer.answers[0]?.status).toBe(200)
    expect(figures.oldestLastMediaAfterThirdMs).toBeLessThanOrEqual(figures.leafLifetimeMs + 1000)
    expect(figures.oldestLeaf).toMatchObject({
      status: 403,
      code: 'stream_ended',
      reason: 'evicted',
    })
    // the oldest stopped short; the second-oldest was not the one ended and played on
    expect(figures.oldestSeconds).toBeLessThan(figures.secondSeconds - 10)
    expect(figures.secondServedAfterThird).toBeGreaterThan(3)
    expect(figures.secondSeconds).toBeGreaterThan(30)
    // the page: admitted, renewed, no stall
    expect(figures.tokenAnswers.length).toBeGreaterThanOrEqual(2)
    expect(figures.tokenAnswers.every((status) => status === 200)).toBe(true)
    expect(state.errors).toEqual([])
    expect(state.fatal).toEqual([])
    expect(run.longestStallMs).toBeLessThan(1200)
    expect(run.advanced).toBeGreaterThan(17)
  } finally {
    await viewer.site.close()
  }
})
