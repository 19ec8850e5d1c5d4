import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Script } from 'node:vm'
import { build, createServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tokenRefreshWorker, workerScript } from './plugin.ts'

// A tiny Vite project (one page) in a temporary folder, built and served with the plugin.
let root: string

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sw-vite-'))
  await writeFile(join(root, 'index.html'), '<!doctype html><script type="module">1</script>')
})
afterAll(() => rm(root, { recursive: true, force: true }))

/** Checks `script` is the worker: a classic script (no import/export) that installs listeners. */
const expectWorker = (script: string) => {
  expect(() => new Script(script)).not.toThrow()
  expect(script).toMatch(/addEventListener\(["'`]fetch["'`]/)
  expect(script).toMatch(/addEventListener\(["'`]message["'`]/)
}

describe('tokenRefreshWorker', () => {
  it('writes token-refresh-sw.js at the root of the build', async () => {
    const outDir = join(root, 'dist')
    await build({
      root,
      configFile: false,
      logLevel: 'silent',
      plugins: [tokenRefreshWorker()],
      build: { outDir },
    })
    const script = await readFile(join(outDir, 'token-refresh-sw.js'), 'utf8')
    expectWorker(script)
    expect(script).toBe(await workerScript())
  })

  it('serves it on the dev server, under the base, never cached', async () => {
    const server = await createServer({
      root,
      configFile: false,
      logLevel: 'silent',
      base: '/app/',
      plugins: [tokenRefreshWorker({ fileName: 'sw/token-refresh-sw.js' })],
      server: { host: '127.0.0.1', port: 0, ws: false },
    })
    await server.listen()
    try {
      const origin = server.resolvedUrls?.local[0] ?? ''
      const response = await fetch(new URL('/app/sw/token-refresh-sw.js', origin))
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('text/javascript')
      expect(response.headers.get('cache-control')).toBe('no-cache')
      expectWorker(await response.text())
    } finally {
      await server.close()
    }
  })
})

describe('workerScript', () => {
  it('takes the prebuilt file of the published package when it exists', async () => {
    const prebuilt = join(root, 'prebuilt-sw.js')
    await writeFile(prebuilt, 'self.prebuilt = true\n')
    expect(await workerScript(prebuilt)).toBe('self.prebuilt = true\n')
  })
})
