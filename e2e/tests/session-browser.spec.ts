// Edge sessions in Chromium with no package and no service worker: the demo's bare
// <video crossorigin> plays a session URL (Chromium's built-in HLS follows the worker's 302s to
// the CDN), and revocation stops a session mid-playback, in Chromium and in ffmpeg alike.
import { cdnRequests } from '../support/cdn-log.ts'
import { demoUrl, expect, test, waitForPlayback, watchPlayback } from '../support/demo.ts'
import { ffmpeg, revoke, sessionIdOf, sessionUrl, uniqueVideo } from '../support/hls-clients.ts'
import { SESSION, tokenUrl } from '../support/stack.ts'

const LEAF_MS = SESSION.leafSeconds * 1000

test('Chromium plays VOD and live on a session URL with no package, past 3 leaf lifetimes, without a stall', async ({
  browser,
}) => {
  const runs = await Promise.all(
    (['vod', 'live'] as const).map(async (type) => {
      const page = await browser.newPage()
      const video = uniqueVideo(`chromium-${type}`)
      await page.goto(demoUrl({ player: 'session', type, video, tokenUrl: tokenUrl('nginx') }))
      await waitForPlayback(page, 'session')
      const run = await watchPlayback(page, 'session', 3 * LEAF_MS + 5000)
      const state = await page.evaluate(() => ({
        controller: navigator.serviceWorker?.controller ?? null,
        crossOrigin: document.querySelector('#session video')?.getAttribute('crossorigin'),
        src: (document.querySelector('#session video') as HTMLVideoElement).currentSrc,
        error: (document.querySelector('#session video') as HTMLVideoElement).error?.code ?? null,
      }))
      await page.close()
      return { type, video, run, state }
    }),
  )
  for (const { type, video, run, state } of runs) {
    const seen = cdnRequests(video)
    await test
      .info()
      .attach(`${type}.json`, { body: JSON.stringify({ run, state, seen }, null, 2) })
    expect(state.controller, type).toBeNull()
    expect(state.crossOrigin, type).toBe('anonymous')
    expect(new URL(state.src).pathname, type).toMatch(new RegExp(`^/s/${video}/`))
    expect(state.error, type).toBeNull()
    expect(run.longestStallMs, type).toBeLessThan(1000)
    expect(run.advanced, type).toBeGreaterThan(3 * SESSION.leafSeconds)
    // every request reached the CDN on a valid URL, and the URLs kept changing
    expect([...new Set(seen.map((entry) => entry.status))], type).toEqual([200])
    expect(new Set(seen.map((entry) => entry.expires)).size, type).toBeGreaterThanOrEqual(3)
  }
})

test('the native protection on a session (protectNativePlayback, mode session) puts the element in CORS mode itself: Chromium plays it past 3 leaf lifetimes', async ({
  page,
}) => {
  // the demo's native <video> has no crossorigin attribute, as a page's may not: the package
  // must set it when it gives the element a session URL (auto mode's fallback does the same)
  const video = uniqueVideo('native-session')
  await page.goto(
    demoUrl({ player: 'native', type: 'vod', mode: 'session', video, tokenUrl: tokenUrl('nginx') }),
  )
  await waitForPlayback(page, 'native')
  const run = await watchPlayback(page, 'native', 3 * LEAF_MS + 5000)
  const state = await page.evaluate(() => {
    const element = document.querySelector('#native video') as HTMLVideoElement
    return {
      crossOrigin: element.crossOrigin,
      src: element.currentSrc,
      error: element.error?.code ?? null,
    }
  })
  const seen = cdnRequests(video)
  await test.info().attach('native-session.json', {
    body: JSON.stringify({ run, state, seen }, null, 2),
  })
  expect(state.crossOrigin, 'the package set CORS mode for the redirects').toBe('anonymous')
  expect(new URL(state.src).pathname).toMatch(new RegExp(`^/s/${video}/`))
  expect(state.error, 'a media error: the redirect to the CDN was refused').toBeNull()
  expect(run.longestStallMs).toBeLessThan(1000)
  expect(run.advanced).toBeGreaterThan(3 * SESSION.leafSeconds)
  expect([...new Set(seen.map((entry) => entry.status))]).toEqual([200])
})

test('without crossorigin, Chromium cannot follow the session’s cross-origin redirect (what docs/sessions.md says)', async ({
  page,
}) => {
  const video = uniqueVideo('no-crossorigin')
  const url = await sessionUrl(video)
  await page.goto(
    demoUrl({ player: 'session', video: uniqueVideo('unused'), tokenUrl: tokenUrl('nginx') }),
  )
  const outcome = await page.evaluate(
    (src) =>
      new Promise<string>((resolve) => {
        const element = document.createElement('video')
        element.muted = true
        element.addEventListener('error', () => resolve(`error ${element.error?.code}`))
        element.requestVideoFrameCallback(() => resolve('frame'))
        element.src = src
        document.body.append(element)
        element.play().catch(() => undefined)
        setTimeout(() => resolve('nothing within 15 s'), 15_000)
      }),
    url,
  )
  expect(outcome).toMatch(/^error /)
})

test('revocation mid-playback: after the leaf lifetime no media request of the session succeeds (ffmpeg and Chromium)', async ({
  page,
}) => {
  test.setTimeout(120_000)
  const ffmpegVideo = uniqueVideo('revoked-ffmpeg')
  const chromiumVideo = uniqueVideo('revoked-chromium')
  const ffmpegSession = await sessionUrl(ffmpegVideo)
  const client = ffmpeg(ffmpegSession)
  await page.goto(demoUrl({ player: 'session', video: chromiumVideo, tokenUrl: tokenUrl('nginx') }))
  await waitForPlayback(page, 'session')
  const chromiumSession = await page.evaluate(
    () => (document.querySelector('#session video') as HTMLVideoElement).currentSrc,
  )
  await page.waitForTimeout(8000)
  const revokedAt = Date.now()
  await Promise.all([
    revoke({ session_id: sessionIdOf(chromiumSession) }),
    revoke({ session_id: sessionIdOf(ffmpegSession) }),
  ])
  await page.waitForTimeout(LEAF_MS + 8000)
  client.process.kill('SIGINT')
  await client.exited
  // ffmpeg kept asking (paced, one segment per 2 s) and the worker refused the session
  expect(client.output()).toMatch(/403 Forbidden/)
  // the leaf URLs handed out just before the revocation live out their 10 s (+1 s the isolate
  // trusts its last answer, +1 s for the second the CDN counts in): nothing later succeeds
  const bound = revokedAt + LEAF_MS + 2000
  for (const video of [ffmpegVideo, chromiumVideo]) {
    const seen = cdnRequests(video)
    await test
      .info()
      .attach(`${video}.json`, { body: JSON.stringify({ revokedAt, seen }, null, 2) })
    expect(
      seen.filter((entry) => entry.status === 200 && entry.at < revokedAt).length,
      video,
    ).toBeGreaterThan(2)
    expect(
      seen.filter((entry) => entry.status === 200 && entry.at > bound),
      video,
    ).toEqual([])
  }
})
