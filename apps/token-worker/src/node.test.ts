import { type ChildProcess, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { type AddressInfo, createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// Runs in Node (not workerd): the self-hosting entry point, started as users start it.
const entry = join(import.meta.dirname, 'node.ts')
// A port nothing else uses (the e2e stack and npm start have fixed ones)
const PORT = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as AddressInfo
    probe.close(() => resolve(port))
  })
})
const md5url = (text: string) => createHash('md5').update(text).digest('base64url')
const config = {
  CLIENT_ID: '777',
  SECRET_KEY: 'node-secret',
  CDN_DOMAIN: 'cdn.node.test',
  CDN_DOMAIN_IP: 'cdn-ip.node.test',
  PORT: String(PORT),
}

const start = async (env: Record<string, string>) => {
  const child = spawn(process.execPath, [entry], { env: { PATH: process.env.PATH ?? '', ...env } })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  return { child, output: () => output }
}

describe('src/node.ts', () => {
  let server: ChildProcess
  let output: () => string

  beforeAll(async () => {
    ;({ child: server, output } = await start(config))
    for (let i = 0; i < 100 && !output().includes('listening'); i++)
      await new Promise((r) => setTimeout(r, 50))
  })
  afterAll(() => server.kill())

  it('serves the same GET /token on Node with config from environment variables', async () => {
    expect(output()).toContain(`listening on http://127.0.0.1:${PORT}/token`)
    const res = await fetch(`http://127.0.0.1:${PORT}/token?video=demo&type=vod&expire=60`, {
      headers: { 'x-forwarded-for': '192.0.2.44' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = (await res.json()) as {
      token: string
      token_ip: string
      expires: number
      url: string
      client_ip: string
    }
    expect(body.client_ip).toBe('192.0.2.44')
    expect(body.token).toBe(md5url(`777_demo_node-secret_${body.expires}_`))
    expect(body.token_ip).toBe(md5url(`777_demo_node-secret_${body.expires}_192.0.2.44`))
    expect(body.url).toBe(
      `https://cdn.node.test/videos/777_demo/${body.token}/${body.expires}/master.m3u8`,
    )
    expect((await fetch(`http://127.0.0.1:${PORT}/token`)).status).toBe(400)
  })

  it('refuses to start on bad configuration, naming the variable and not the secret', async () => {
    const { child, output: out } = await start({
      ...config,
      PORT: String(PORT + 1),
      CDN_DOMAIN: '',
    })
    const [code] = await once(child, 'exit')
    expect(code).not.toBe(0)
    expect(out()).toContain('CDN_DOMAIN is required')
    expect(out()).not.toContain('node-secret')
  })
})
