// proj-cdn-emulator as a user runs it: the bin (src/main.ts, the package's "bin") started as a
// process under this Node, on any free ports, serving a media folder made here; tokens signed by
// @proj/signing as the token backend signs them, checked over real HTTP.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signToken } from '@proj/signing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const BIN = join(import.meta.dirname, 'main.ts')
const secret = 'bin-test-secret'
const running = new Set<ChildProcess>()

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the bin to its end (for the runs that must not serve). */
async function runToEnd(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', SECRET_KEY: secret, ...env },
  })
  running.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const [code] = (await once(child, 'exit')) as [number | null]
  running.delete(child)
  return { code, stdout, stderr }
}

/** Starts the bin on free ports; resolves with the three base URLs from its start line. */
async function serveBin(args: string[]) {
  const child = spawn(
    process.execPath,
    [BIN, ...args, '--port', '0', '--ip-port', '0', '--origin-port', '0'],
    { env: { PATH: process.env.PATH ?? '', SECRET_KEY: secret } },
  )
  running.add(child)
  let output = ''
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk
      if (output.includes('\n')) resolve(output)
    })
    child.stderr.on('data', (chunk) => {
      output += chunk
    })
    child.on('exit', (code) => reject(new Error(`exited ${code} before listening:\n${output}`)))
  })
  const url = (role: string) =>
    new RegExp(`${role} (http://127\\.0\\.0\\.1:\\d+)`).exec(line)?.[1] ?? ''
  return { child, line, plain: url('plain'), ip: url('IP-bound'), origin: url('origin') }
}

const media = mkdtempSync(join(tmpdir(), 'cdn-emulator-media-'))
const segment = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256))
const master = '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\nlow/index.m3u8\n'
beforeAll(() => {
  mkdirSync(join(media, 'low'))
  writeFileSync(join(media, 'master.m3u8'), master)
  writeFileSync(
    join(media, 'low', 'index.m3u8'),
    '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg_000.ts\n#EXT-X-ENDLIST\n',
  )
  writeFileSync(join(media, 'low', 'seg_000.ts'), segment)
})
afterAll(() => {
  for (const child of running) child.kill('SIGKILL')
  rmSync(media, { recursive: true, force: true })
})

describe('proj-cdn-emulator', () => {
  const expires = Math.floor(Date.now() / 1000) + 600
  const path = (token: string, at = expires, file = 'master.m3u8') =>
    `/videos/12345_demo/${token}/${at}/${file}`
  const plainToken = signToken({ clientId: '12345', video: 'demo', secret, expires })

  it('serves the folder of --media behind the token check: 200, 403, 410 as nginx', async () => {
    const bin = await serveBin(['--media', media])
    try {
      expect(bin.line).toContain(`media ${media}`)
      const ok = await fetch(`${bin.plain}${path(plainToken)}`)
      expect(ok.status).toBe(200)
      expect(await ok.text()).toBe(master)
      const bytes = await fetch(`${bin.plain}${path(plainToken, expires, 'low/seg_000.ts')}`)
      expect(Buffer.from(await bytes.arrayBuffer()).equals(segment)).toBe(true)

      const forged = signToken({ clientId: '12345', video: 'demo', secret: 'other', expires })
      expect((await fetch(`${bin.plain}${path(forged)}`)).status).toBe(403)
      // another video's token
      const other = signToken({ clientId: '12345', video: 'other', secret, expires })
      expect((await fetch(`${bin.plain}${path(other)}`)).status).toBe(403)
      const past = Math.floor(Date.now() / 1000) - 5
      const expired = signToken({ clientId: '12345', video: 'demo', secret, expires: past })
      expect((await fetch(`${bin.plain}${path(expired, past)}`)).status).toBe(410)

      // the IP-bound host: a token for this viewer's address, not the plain one
      const bound = signToken({
        clientId: '12345',
        video: 'demo',
        secret,
        expires,
        ip: '127.0.0.1',
      })
      expect((await fetch(`${bin.ip}${path(bound)}`)).status).toBe(200)
      expect((await fetch(`${bin.ip}${path(plainToken)}`)).status).toBe(403)
      // the origin is token-free
      expect(await (await fetch(`${bin.origin}/vod/12345_demo/master.m3u8`)).text()).toBe(master)
    } finally {
      bin.child.kill()
    }
  })

  it("never serves another video's files for a token, and HEAD carries GET's Content-Length", async () => {
    const bin = await serveBin(['--media', media])
    try {
      for (const attack of [
        '.%09./.%09./live/99999_secretvideo/low/index.m3u8',
        '..%5c..%5clive%5c99999_secretvideo%5clow%5cindex.m3u8',
        '%252e%252e/%252e%252e/live/99999_secretvideo/low/index.m3u8',
      ]) {
        const res = await fetch(`${bin.plain}${path(plainToken, expires, attack)}`)
        expect(res.status, attack).toBe(404)
        expect(await res.text(), attack).not.toContain('#EXTM3U')
      }
      for (const host of [bin.plain, `${bin.origin}/vod/12345_demo/low/seg_000.ts`]) {
        const url =
          host === bin.plain ? `${host}${path(plainToken, expires, 'low/seg_000.ts')}` : host
        const head = await fetch(url, { method: 'HEAD' })
        expect(head.status, url).toBe(200)
        expect(head.headers.get('content-length'), url).toBe(String(segment.byteLength))
        const get = await fetch(url)
        expect(get.headers.get('content-length'), url).toBe(String(segment.byteLength))
        await get.arrayBuffer()
      }
    } finally {
      bin.child.kill()
    }
  })

  it('serves the committed test media without --media', async () => {
    const bin = await serveBin([])
    try {
      const file = join(import.meta.dirname, '..', 'media', 'vod', 'v1', 'key.bin')
      const key = await fetch(`${bin.plain}${path(plainToken, expires, 'v1/key.bin')}`)
      expect(Buffer.from(await key.arrayBuffer()).equals(readFileSync(file))).toBe(true)
    } finally {
      bin.child.kill()
    }
  })

  it('prints its usage with --help, exit 0', async () => {
    const run = await runToEnd(['--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^Usage: proj-cdn-emulator \[--media <dir>\]/)
  })

  it.each([
    [['--media', '/nonexistent/media'], '--media /nonexistent/media: no such folder'],
    [['--port', 'eighty'], '--port "eighty": not a port'],
    [['--verbose'], "Unknown option '--verbose'"],
  ])('refuses %j with exit 2 and the reason', async (args, message) => {
    const run = await runToEnd(args)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`proj-cdn-emulator: ${message}`)
    expect(run.stderr).toContain('Usage: proj-cdn-emulator')
    expect(run.stdout).toBe('')
  })

  it('refuses a folder without master.m3u8, exit 2', async () => {
    const run = await runToEnd(['--media', join(media, 'low')])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`--media ${join(media, 'low')}: no master.m3u8 in it`)
  })

  it('names the port that is taken and the option that moves it, exit 1', async () => {
    const taken = createServer()
    taken.listen(0, '127.0.0.1')
    await once(taken, 'listening')
    const { port } = taken.address() as { port: number }
    try {
      const run = await runToEnd(['--port', String(port), '--ip-port', '0', '--origin-port', '0'])
      expect(run.code).toBe(1)
      expect(run.stderr).toContain(
        `proj-cdn-emulator: port ${port} on 127.0.0.1 (the plain host) is in use`,
      )
      expect(run.stderr).toContain('choose another with --port')
    } finally {
      taken.close()
    }
  })
})
