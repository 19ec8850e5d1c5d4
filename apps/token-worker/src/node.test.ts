import { type ChildProcess, spawn } from 'node:child_process'
import { createHash, webcrypto } from 'node:crypto'
import { once } from 'node:events'
import { type AddressInfo, createServer } from 'node:net'
import { join } from 'node:path'
import { serve } from '@hono/node-server'
import { createCdn, createOrigin } from '@proj/cdn-emulator'
import { Agent, fetch as fetchWith } from 'undici'
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
  AUTH_MODE: 'none',
  PORT: String(PORT),
}

const start = async (env: Record<string, string>) => {
  const child = spawn(process.execPath, [entry], { env: { PATH: process.env.PATH ?? '', ...env } })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  return { child, output: () => output }
}

/** A fetch from the loopback address `from`: a viewer the server's socket tells apart. */
const pools = new Map<string, Agent>()
const fetchFrom = (from: string, url: string, headers: Record<string, string> = {}) => {
  const pool = pools.get(from) ?? new Agent({ localAddress: from })
  pools.set(from, pool)
  return fetchWith(url, { headers, dispatcher: pool })
}
afterAll(() => Promise.all([...pools.values()].map((pool) => pool.close())))

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
    // the viewer is the socket's peer: a header any caller writes is not believed
    const res = await fetchFrom(
      '127.0.0.44',
      `http://127.0.0.1:${PORT}/token?video=demo&type=vod&expire=60`,
      { 'x-forwarded-for': '192.0.2.44' },
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = (await res.json()) as {
      token: string
      token_ip: string
      expires: number
      url: string
      client_ip: string
    }
    expect(body.client_ip).toBe('127.0.0.44')
    expect(body.token).toBe(md5url(`777_demo_node-secret_${body.expires}_`))
    expect(body.token_ip).toBe(md5url(`777_demo_node-secret_${body.expires}_127.0.0.44`))
    expect(body.url).toBe(
      `https://cdn.node.test/videos/777_demo/${body.token}/${body.expires}/master.m3u8`,
    )
    expect((await fetch(`http://127.0.0.1:${PORT}/token`)).status).toBe(400)
    // the audit line reaches stdout (batched per event-loop turn), without the tokens
    await expect.poll(output).toContain(`"expires":${body.expires}`)
    const line = output()
      .split('\n')
      .find((text) => text.includes('token_issued'))
    expect(JSON.parse(line ?? '{}')).toMatchObject({ video: 'demo', client_ip: '127.0.0.44' })
    expect(output()).not.toContain(body.token)
  })

  it('with JWT_JWKS_URL: one key fetch for 50 requests; a down key server is a 503, not a 401', async () => {
    const { createServer: createHttpServer } = await import('node:http')
    const { sign } = await import('hono/jwt')
    const pair = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair
    const publicJwk = {
      ...(await webcrypto.subtle.exportKey('jwk', pair.publicKey)),
      kid: 'k1',
      alg: 'ES256',
    }
    // with alg, hono's sign puts the kid in the header
    const privateJwk = {
      ...(await webcrypto.subtle.exportKey('jwk', pair.privateKey)),
      kid: 'k1',
      alg: 'ES256',
    }
    let hits = 0
    let down = false
    const keyServer = createHttpServer((_, response) => {
      hits++
      if (down) return response.writeHead(500).end('down')
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ keys: [publicJwk] }))
    })
    await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve))
    const jwksUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}/jwks.json`
    const port = PORT + 2
    const jwtServer = await start({
      ...config,
      PORT: String(port),
      AUTH_MODE: 'jwt',
      JWT_JWKS_URL: jwksUrl,
    })
    try {
      for (let i = 0; i < 100 && !jwtServer.output().includes('listening'); i++)
        await new Promise((r) => setTimeout(r, 50))
      const token = await sign(
        { videos: ['demo'], exp: Math.floor(Date.now() / 1000) + 300 },
        privateJwk as never,
        'ES256',
      )
      const ask = () =>
        fetch(`http://127.0.0.1:${port}/token?video=demo`, {
          headers: { authorization: `Bearer ${token}` },
        })
      const first = await ask()
      expect(first.status, `${await first.clone().text()} ${jwtServer.output()}`).toBe(200)
      for (let i = 0; i < 49; i++) expect((await ask()).status).toBe(200)
      expect(hits).toBe(1)
      // a fresh process whose key server is down from the start
      down = true
      const downServer = await start({
        ...config,
        PORT: String(port + 1),
        AUTH_MODE: 'jwt',
        JWT_JWKS_URL: jwksUrl,
      })
      try {
        for (let i = 0; i < 100 && !downServer.output().includes('listening'); i++)
          await new Promise((r) => setTimeout(r, 50))
        const res = await fetch(`http://127.0.0.1:${port + 1}/token?video=demo`, {
          headers: { authorization: `Bearer ${token}` },
        })
        expect(res.status).toBe(503)
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
        expect(await res.json()).toEqual({ error: expect.stringContaining('key server') })
      } finally {
        downServer.child.kill()
      }
    } finally {
      jwtServer.child.kill()
      keyServer.close()
    }
  })

  it('with RATE_LIMIT_REQUESTS: an in-memory limit per viewer, 429 + Retry-After over it', async () => {
    const port = PORT + 4
    const limited = await start({ ...config, PORT: String(port), RATE_LIMIT_REQUESTS: '3' })
    try {
      for (let i = 0; i < 100 && !limited.output().includes('listening'); i++)
        await new Promise((r) => setTimeout(r, 50))
      // each viewer forges a new X-Real-IP per request: counted by its socket all the same
      let forged = 0
      const ask = (from: string) =>
        fetchFrom(from, `http://127.0.0.1:${port}/token?video=demo`, {
          'x-real-ip': `203.0.113.${++forged}`,
        })
      const statuses = []
      for (let i = 0; i < 4; i++) statuses.push((await ask('127.0.0.45')).status)
      expect(statuses).toEqual([200, 200, 200, 429])
      const over = await ask('127.0.0.45')
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(50) // a 60-s window
      expect(await over.json()).toEqual({
        error: expect.stringContaining('too many token requests'),
      })
      expect((await ask('127.0.0.46')).status).toBe(200)
    } finally {
      limited.child.kill()
    }
  })

  it.each([
    [{ CDN_DOMAIN: '' }, 'CDN_DOMAIN is required: it must be a host name, optionally with :port'],
    [
      { SECRET_KEY: '' },
      'SECRET_KEY is required: it must be set, without spaces or line breaks at either end',
    ],
    [{ INSTANCES: 'many' }, 'INSTANCES must be a whole number of instances, 1 or more'],
  ])(
    'refuses to start on %j: one line naming it, never the secret, exit 2',
    async (bad, message) => {
      const { child, output: out } = await start({ ...config, PORT: String(PORT + 1), ...bad })
      const [code] = await once(child, 'exit')
      expect(code).toBe(2)
      expect(out().trim()).toBe(`token-worker (node): bad configuration: ${message}`)
      expect(out()).not.toContain('node-secret')
    },
  )

  it('serves sessions on Node: playlists from the CDN, leaves redirected, revocation in memory', async () => {
    // the CDN emulator (403/410 like nginx) on its own port, in front of the test media
    const origin = createOrigin({
      mediaDir: join(import.meta.dirname, '../../cdn-emulator/media/vod'),
    })
    const cdn = serve({
      fetch: createCdn({
        secret: 'node-secret',
        ipBound: false,
        origin: (path) => origin.request(path),
      }).fetch,
      port: 0,
      hostname: '127.0.0.1',
    })
    await once(cdn, 'listening')
    const cdnPort = (cdn.address() as AddressInfo).port
    const port = PORT + 3
    const admin = 'node-admin-token-of-32-characters!!'
    const worker = await start({
      ...config,
      PORT: String(port),
      CDN_DOMAIN: `127.0.0.1:${cdnPort}`,
      CDN_SCHEME: 'http',
      SESSION_SECRET: 'node-session-secret-of-32-characters',
      SESSION_ADMIN_TOKEN: admin,
      SESSION_LEAF_LIFETIME: '10',
    })
    try {
      for (let i = 0; i < 100 && !worker.output().includes('listening'); i++)
        await new Promise((r) => setTimeout(r, 50))
      const base = `http://127.0.0.1:${port}`
      const issued = await fetch(`${base}/session?video=demo&type=vod`)
      expect(issued.status).toBe(200)
      const { session_url: sessionUrl } = (await issued.json()) as { session_url: string }
      expect(sessionUrl.startsWith(`${base}/s/demo/`)).toBe(true)
      const media = await (await fetch(new URL('v1/index.m3u8', sessionUrl))).text()
      expect(media).toContain('URI="key.bin"')
      const leaf = await fetch(new URL('v1/seg_003.ts', sessionUrl), { redirect: 'manual' })
      expect(leaf.status).toBe(302)
      const location = leaf.headers.get('location') ?? ''
      const expires = Number(/\/(\d+)\/v1\/seg_003\.ts$/.exec(location)?.[1])
      expect(expires - Date.now() / 1000).toBeGreaterThan(8)
      expect(expires - Date.now() / 1000).toBeLessThanOrEqual(10)
      const segment = await fetch(location)
      expect(segment.status).toBe(200)
      expect((await segment.arrayBuffer()).byteLength).toBeGreaterThan(1000)
      const sid = JSON.parse(
        Buffer.from(sessionUrl.split('/')[5]?.split('.')[1] ?? '', 'base64url').toString(),
      ).sid
      const revoked = await fetch(`${base}/sessions/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: sid }),
      })
      expect(revoked.status).toBe(200)
      const after = await fetch(new URL('v1/seg_004.ts', sessionUrl), { redirect: 'manual' })
      expect(after.status).toBe(403)
      await new Promise((r) => setTimeout(r, 100))
      expect(worker.output()).toContain('"event":"session_issued"')
      expect(worker.output()).toContain('"event":"session_refused"')
      expect(worker.output()).not.toContain(sessionUrl.split('/')[5])
    } finally {
      worker.child.kill()
      cdn.close()
    }
  })
})
