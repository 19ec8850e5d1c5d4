import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runInThisContext } from 'node:vm'
import {
  fakeTime,
  fakeTokenBackend,
  testRefreshOptions,
  tinyCdn,
} from '@proj/token-refresh/testing'
import type shakaModule from 'shaka-player'
import { build } from 'vite'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type * as api from './index.ts'

// The script-tag build as a page gets it: Shaka's own compiled file first (it sets `shaka` on
// the window), then the IIFE, both evaluated as classic scripts in the happy-dom window. The IIFE
// is built here, into a temporary folder, from the same config as `pnpm build`.
type Globals = { shaka: typeof shakaModule; ShakaTokenRefresh: typeof api }
const page = globalThis as unknown as Globals
let folder: string

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'shaka-iife-'))
  await build({
    configFile: join(import.meta.dirname, '../vite.iife.config.ts'),
    build: { outDir: folder },
    logLevel: 'silent',
  })
  const player = createRequire(import.meta.url).resolve(
    'shaka-player/dist/shaka-player.compiled.js',
  )
  runInThisContext(await readFile(player, 'utf8'), { filename: player })
  page.shaka.polyfill.installAll()
  const ours = join(folder, 'shaka-token-refresh.min.js')
  runInThisContext(await readFile(ours, 'utf8'), { filename: ours })
}, 30_000)
afterAll(() => rm(folder, { recursive: true, force: true }))

it('exposes ShakaTokenRefresh beside the shaka global', () => {
  expect(typeof page.shaka.Player).toBe('function')
  expect(Object.keys(page.ShakaTokenRefresh)).toEqual(
    expect.arrayContaining(['createTokenRefresh', 'fetchToken', 'tokenRequestFilter']),
  )
})

it("keeps the global Shaka's requests on fresh tokens through the global API", async () => {
  const { shaka, ShakaTokenRefresh } = page
  const time = fakeTime()
  const cdn = await tinyCdn(time.clock)
  const player = new shaka.Player()
  try {
    const backend = fakeTokenBackend({ clock: time.clock })
    const refresh = await ShakaTokenRefresh.createTokenRefresh(
      testRefreshOptions(time, cdn.issuing(backend.getToken)),
    )
    const first = refresh.url
    expect(first).toContain('/tok0001plain/')
    refresh.attach(player)
    await time.advance(14_000) // past the lead time: the second token is in
    const { NetworkingEngine } = shaka.net
    const request = NetworkingEngine.makeRequest([first], NetworkingEngine.defaultRetryParameters())
    const response = await player
      .getNetworkingEngine()
      ?.request(NetworkingEngine.RequestType.MANIFEST, request).promise
    expect(response?.status).toBe(200)
    expect(cdn.hits.map((hit) => `${hit.token} ${hit.status}`)).toEqual(['tok0002plain 200'])
  } finally {
    await player.destroy()
    await cdn.close()
  }
})
