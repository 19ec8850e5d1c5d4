// Issue 31: the script-tag builds keep what a page needs only sometimes out of the IIFE: the CDN
// lane (records with several CDNs) and, for hls.js and video.js, the native protection, each an
// ES module file beside the IIFE that it imports on demand, relative to its own URL (a classic
// script's import() resolves against the script, not the page). Here in Chromium, each IIFE
// served from a folder of its own under a page elsewhere: a record of one CDN fetches no lane, a
// record of two fetches it (and fails over with it), the native protection loads for
// registerTokenRefreshWorker, Shaka's live clock correction for a live presentation, and the
// hls.js and video.js give-up (what runs after a failure) with the first failure.
import { execFileSync } from 'node:child_process'
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { expect, test } from '@playwright/test'

const PACKAGES = join(import.meta.dirname, '../../packages')
const BUILDS = [
  {
    name: 'hls.js',
    folder: 'hlsjs-token-refresh',
    iife: 'hlsjs-token-refresh.min.js',
    global: 'HlsTokenRefresh',
    player: 'hls.js/dist/hls.min.js',
    native: true,
    liveClock: false,
    afterFailure: true,
  },
  {
    name: 'video.js',
    folder: 'videojs-token-refresh',
    iife: 'videojs-token-refresh.min.js',
    global: 'VideojsTokenRefresh',
    player: 'video.js/dist/video.min.js',
    native: true,
    liveClock: false,
    afterFailure: true,
  },
  {
    name: 'Shaka',
    folder: 'shaka-token-refresh',
    iife: 'shaka-token-refresh.min.js',
    global: 'ShakaTokenRefresh',
    player: 'shaka-player/dist/shaka-player.compiled.js',
    native: false,
    liveClock: true,
    afterFailure: false,
  },
  {
    name: 'dash.js',
    folder: 'dashjs-token-refresh',
    iife: 'dashjs-token-refresh.min.js',
    global: 'DashjsTokenRefresh',
    player: 'dashjs/dist/modern/umd/dash.all.min.js',
    native: false,
    liveClock: false,
    afterFailure: false,
  },
] as const

let out = ''
let server: Server | undefined
let origin = ''
/** Every path the server was asked for, in order. */
const asked: string[] = []

test.describe.configure({ mode: 'default' })

test.beforeAll(() => {
  test.setTimeout(120_000)
  out = mkdtempSync(join(tmpdir(), 'script-tag-'))
  // each package's own script-tag build, as `pnpm build` makes it, into a folder of its own
  for (const build of BUILDS)
    execFileSync(
      'pnpm',
      ['exec', 'vite', 'build', '-c', 'vite.iife.config.ts', '--outDir', join(out, build.folder)],
      { cwd: join(PACKAGES, build.folder), stdio: 'pipe' },
    )
  const listening = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname
    asked.push(path)
    const [, folder = '', file = ''] = path.split('/')
    const build = BUILDS.find((candidate) => candidate.folder === folder)
    const served = !build
      ? undefined
      : file === 'player.js'
        ? join(PACKAGES, build.folder, 'node_modules', build.player)
        : join(out, build.folder, basename(file))
    if (path === '/') {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>t</title>')
      return
    }
    if (!served || !existsSync(served) || !statSync(served).isFile()) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'content-type': 'text/javascript' })
    createReadStream(served).pipe(response)
  })
  server = listening
  return new Promise<void>((resolve) =>
    listening.listen(0, '127.0.0.1', () => {
      origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`
      resolve()
    }),
  )
})

test.afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  if (out) rmSync(out, { recursive: true, force: true })
})

for (const build of BUILDS)
  test(`${build.name}: the IIFE fetches its CDN lane only for a record with several CDNs${build.native ? ', and its native protection on demand' : ''}${build.liveClock ? ', and its live clock for a live presentation' : ''}`, async ({
    page,
  }) => {
    await page.goto(`${origin}/`)
    for (const file of ['player.js', build.iife])
      await page.addScriptTag({ url: `${origin}/${build.folder}/${file}` })
    asked.length = 0
    // in the page: a refresher on a record of `ids` (a fake backend: no network but ours)
    const refresher = (ids: string[]) => `(async () => {
      const api = window[${JSON.stringify(build.global)}]
      const expires = Math.floor(Date.now() / 1000) + 300
      const pair = (id) => ({
        id, expires, token: 'tok00001' + id, token_ip: 'tok00002' + id,
        url: 'https://' + id + '.cdn.test/videos/12345_demo/tok00001' + id + '/' + expires + '/master.m3u8',
        url_ip: 'https://' + id + '.cdn-ip.test/videos/12345_demo/tok00002' + id + '/' + expires + '/master.m3u8',
      })
      const ids = ${JSON.stringify(ids)}
      const record = { ...pair(ids[0]), client_ip: '127.0.0.1' }
      if (ids.length > 1) record.cdns = ids.map((id, priority) => ({ ...pair(id), priority }))
      window.refresher = await api.TokenRefresher.create({
        getToken: async () => record, refreshLeadSeconds: 60, peers: null, onError: () => undefined,
      })
      return window.refresher.activeCdn ?? 'none'
    })()`
    expect(await page.evaluate(refresher(['a']))).toBe('none')
    const lane = `/${build.folder}/${build.folder}.cdn-lane.js`
    const nativeFile = `/${build.folder}/${build.folder}.native.js`
    expect(asked).toEqual([]) // one CDN: nothing fetched
    expect(await page.evaluate(refresher(['a', 'b']))).toBe('a')
    expect(asked).toEqual([lane]) // the lane, before create resolved
    // and it fails over: a 503 of a sends the request to b, with b's token
    const sentAfter = await page.evaluate(`(() => {
      const attempt = window.refresher.attempt('https://a.cdn.test/videos/12345_demo/old0000/1767225600/v0/s.ts')
      attempt.send()
      return attempt.failed(503) + ' ' + attempt.send()
    })()`)
    expect(sentAfter).toMatch(/^resend https:\/\/b\.cdn\.test\/videos\/12345_demo\/tok00001b\//)
    if (build.liveClock) {
      const clockFile = `/${build.folder}/${build.folder}.live-clock.js`
      expect(asked).not.toContain(clockFile)
      // a player whose live presentation has loaded: the correction comes and measures it
      const measured = await page.evaluate(`(async () => {
        const offsets = []
        const player = Object.assign(new EventTarget(), {
          isLive: () => true,
          getManifest: () => ({ presentationTimeline: { setClockOffset: (ms) => offsets.push(ms) } }),
          getMediaElement: () => null,
          seekRange: () => ({ start: 0, end: 10 }),
        })
        const clock = window[${JSON.stringify(build.global)}].shakaClockSync(player, window.refresher)
        player.dispatchEvent(new Event('loaded'))
        for (let i = 0; i < 100 && offsets.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
        clock.detach()
        return offsets.length
      })()`)
      expect(measured).toBe(1)
      expect(asked).toContain(clockFile)
    }
    if (!build.native) return
    const worker = await page.evaluate(`window[${JSON.stringify(build.global)}]
      .registerTokenRefreshWorker({ url: '/no-such-worker.js', timeoutMs: 1000 })
      .then(() => 'registered', (error) => error.name)`)
    expect(worker).toBe('ServiceWorkerUnavailableError')
    expect(asked).toContain(nativeFile)
  })

/**
 * In the page: a player on the build's API whose second token request is refused as a stream
 * (a StreamLimitError, two seconds in); resolves with what the player's own fatal error says.
 */
const refusedSecondToken = (build: (typeof BUILDS)[number]) => `(async () => {
  const api = window[${JSON.stringify(build.global)}]
  const expires = Math.floor(Date.now() / 1000) + 62
  const record = {
    expires, token: 'tok00001a', token_ip: 'tok00002a', client_ip: '127.0.0.1',
    url: 'https://a.cdn.test/videos/12345_demo/tok00001a/' + expires + '/master.m3u8',
    url_ip: 'https://a.cdn-ip.test/videos/12345_demo/tok00002a/' + expires + '/master.m3u8',
  }
  let asked = 0
  const getToken = async () => {
    if (asked++ === 0) return record
    throw Object.assign(new Error('token backend answered 409: stream limit reached'), {
      name: 'StreamLimitError', code: 'stream_limit', limit: 1,
    })
  }
  const options = { getToken, refreshLeadSeconds: 60, peers: null, onError: () => undefined }
  if (${JSON.stringify(build.name)} === 'hls.js') {
    const refresh = await api.createTokenRefresh({ ...options, Hls: window.Hls })
    const hls = new window.Hls(refresh.hlsConfig)
    refresh.attach(hls)
    return new Promise((resolve) =>
      hls.on(window.Hls.Events.ERROR, (_, data) => {
        if (data.fatal) resolve(data.details + ': ' + data.error.name)
      }),
    )
  }
  const element = document.createElement('video-js')
  document.body.append(element)
  const player = window.videojs(element, { plugins: { tokenRefresh: options } })
  return new Promise((resolve) => player.on('error', () => resolve(player.error().code + ': ' + player.error().message)))
})()`

for (const build of BUILDS.filter((candidate) => candidate.afterFailure))
  test(`${build.name}: the IIFE fetches its give-up with the first failure, which ends playback in the player's own fatal error`, async ({
    page,
  }) => {
    // the player's requests to the fake CDN stay unanswered: the failure is the refused token
    await page.route('https://a.cdn.test/**', () => undefined)
    await page.goto(`${origin}/`)
    for (const file of ['player.js', build.iife])
      await page.addScriptTag({ url: `${origin}/${build.folder}/${file}` })
    asked.length = 0
    const fatal = await page.evaluate(refusedSecondToken(build))
    expect(fatal).toBe(
      build.name === 'hls.js'
        ? 'fragLoadError: StreamLimitError'
        : '2: token refresh: token backend answered 409: stream limit reached',
    )
    expect(asked).toEqual([`/${build.folder}/${build.folder}.after-failure.js`])
  })
