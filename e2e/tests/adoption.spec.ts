// Issue 25, the adopter's proof: the packages as npm installs them from their tarballs, in an app
// outside the workspace (e2e/adoption/prepare.ts), play past the first token's expiry through
// nginx: hls.js and hls.js/light bundled by Vite, and video.js with plain <script> tags (its dist
// build and the plugin's IIFE build, straight from node_modules). 20-s tokens, a 6-s lead.
import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { basename, extname, join, normalize } from 'node:path'
import {
  ensurePrepared,
  FIXTURE,
  HLS_BUILD_OF_PAGE,
  hlsBuildsPerPage,
} from '../adoption/prepare.ts'
import {
  expect,
  type PlayerName,
  probe,
  test,
  waitForPlayback,
  watchPlayback,
} from '../support/demo.ts'
import { tokenUrl } from '../support/stack.ts'

const LIFETIME = 20
const LEAD = 6
const PAGES: { name: string; file: string; player: PlayerName }[] = [
  { name: 'hls.js through ESM (Vite build)', file: 'dist/hlsjs.html', player: 'hlsjs' },
  { name: 'hls.js/light through ESM (Vite build)', file: 'dist/hlsjs-light.html', player: 'hlsjs' },
  {
    name: 'video.js with <script> tags, no bundler',
    file: 'videojs-script.html',
    player: 'videojs',
  },
]
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.woff': 'font/woff',
  '.svg': 'image/svg+xml',
}

/** The fixture folder as a static site on a free loopback port (no bundler's server). */
function serveFixture(): Promise<Server> {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname))
    const file = join(FIXTURE, path)
    if (!file.startsWith(`${FIXTURE}/`) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    })
    createReadStream(file).pipe(response)
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

// one worker for the file: prepare runs once, one server for the three pages
test.describe.configure({ mode: 'default' })

let server: Server | undefined
let origin = ''
test.beforeAll(async () => {
  // packing, npm install and the Vite build when `npm test`'s step "adoption" has not run
  test.setTimeout(600_000)
  ensurePrepared()
  server = await serveFixture()
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
test.afterAll(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
)

for (const { name, file, player } of PAGES)
  test(`${name}: plays past the first token's expiry on refreshed tokens`, async ({
    page,
    traffic,
  }) => {
    const query = new URLSearchParams({
      token: tokenUrl('nginx'),
      // its own video name: the CDN log of parallel specs stays apart (every name plays the same media)
      video: `adoption-${file.replace(/\W+/g, '-')}`,
      expire: String(LIFETIME),
      lead: String(LEAD),
    })
    const hlsBuild = HLS_BUILD_OF_PAGE[basename(file)]
    if (hlsBuild)
      // the build's module list: the page loads one hls.js file, its own (never the full build
      // next to hls.js/light)
      expect(hlsBuildsPerPage()[basename(file)]).toEqual([hlsBuild])
    await page.goto(`${origin}/${file}?${query}`)
    await waitForPlayback(page, player)
    const first = traffic.tokens[0]
    expect(first, 'the page fetched its first token from the token worker').toBeTruthy()
    // watch until well past the first token's expiry
    const expiresAt = (first?.expires ?? 0) * 1000
    const run = await watchPlayback(page, player, Math.max(25_000, expiresAt + 8000 - Date.now()))

    expect(run.advanced).toBeGreaterThan(20)
    const state = await probe(page, player)
    expect(state.fatal).toEqual([])
    expect(state.refreshCount).toBeGreaterThanOrEqual(1)
    expect(traffic.rejected()).toEqual([])
    // after the first token expired the player went on fetching media, on a newer token
    const late = traffic.media.filter((request) => request.at > expiresAt + 1000)
    expect(late.length).toBeGreaterThan(0)
    expect(late.filter((request) => request.token === first?.token)).toEqual([])
    if (player === 'videojs')
      // the IIFE build registered the plugin on window.videojs by itself and exposes its exports
      expect(
        await page.evaluate(() => {
          const page = window as unknown as {
            videojs?: { getPlugin(name: string): unknown }
            VideojsTokenRefresh?: Record<string, unknown>
          }
          return {
            plugin: typeof page.videojs?.getPlugin('tokenRefresh'),
            fetchToken: typeof page.VideojsTokenRefresh?.fetchToken,
          }
        }),
      ).toEqual({ plugin: 'function', fetchToken: 'function' })
  })
