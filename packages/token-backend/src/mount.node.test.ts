import { createHash } from 'node:crypto'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { serve } from '@hono/node-server'
import { createCdn, createOrigin } from '@proj/cdn-emulator'
import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import { closeAddresses, fetchFrom } from '../test/from-address.ts'
import { checkMountedApp, MOUNTED_ADMIN } from '../test/mounted.ts'
import { createTokenApp } from './app.ts'
import type { TokenConfigInput } from './config.ts'
import { serveTokenApp } from './node.ts'

// On Node: the app mounted in a parent Hono app, configured by an object (no environment at all),
// its playlists fetched from the real token-checking CDN emulator in this process.
const origin = createOrigin({
  mediaDir: join(import.meta.dirname, '../../../apps/cdn-emulator/media/vod'),
})
const cdn = createCdn({
  secret: 'node-secret',
  ipBound: false,
  origin: (path) => origin.request(path),
  clientIp: () => '127.0.0.1',
})
const viaCdn = async (url: string) => {
  const { pathname, search, host } = new URL(url)
  return host === 'cdn.node.test'
    ? cdn.request(pathname + search)
    : new Response('not the test CDN', { status: 502 })
}
const config: TokenConfigInput = {
  signing: {
    clientId: '777',
    secretKey: 'node-secret',
    cdnDomain: 'cdn.node.test',
    cdnDomainIp: 'cdn-ip.node.test',
  },
  auth: { mode: 'none' },
  session: { secret: 'node-session-secret-of-32-characters', adminToken: MOUNTED_ADMIN },
}

afterAll(closeAddresses)

describe('mounted in a parent app under /video (Node, configuration as an object)', () => {
  it('serves every route under the prefix: tokens, sessions, their files, revocation, {error}', async () => {
    const parent = new Hono()
      .get('/health', (c) => c.text('ok'))
      .route(
        '/video',
        createTokenApp({
          config,
          audit: () => undefined,
          fetcher: (input) => viaCdn(String(input)),
          // in process there is no socket: the seam a server of your own fills
          connectionAddress: () => '203.0.113.7',
        }),
      )
    await checkMountedApp((path, init) => parent.request(path, init), viaCdn)
  })

  it("parent.mount('/tok', app.fetch): session.baseUrl names the mount point it hides", async () => {
    const tokens = createTokenApp({
      config: {
        ...config,
        session: { ...config.session, secret: config.session?.secret ?? '', baseUrl: '/tok' },
      },
      audit: () => undefined,
      fetcher: (input) => viaCdn(String(input)),
      connectionAddress: () => '203.0.113.7',
    })
    const parent = new Hono().get('/health', (c) => c.text('ok')).mount('/tok', tokens.fetch)
    await checkMountedApp((path, init) => parent.request(path, init), viaCdn, {
      at: '/tok',
      seen: '',
    })
  })

  it('answers through @hono/node-server with no environment', async () => {
    const parent = new Hono().route('/video', createTokenApp({ config, audit: () => undefined }))
    const server = serve({ fetch: parent.fetch, port: 0, hostname: '127.0.0.1' })
    await once(server, 'listening')
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/video`
      // the viewer is the socket's peer, through the parent's route (no header is trusted)
      const res = await fetchFrom('127.0.0.21', `${base}/token?video=demo`, {
        headers: { 'x-real-ip': '192.0.2.1' },
      })
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ client_ip: '127.0.0.21' })
      const session = await (await fetch(`${base}/session?video=demo`)).json()
      expect(session).toMatchObject({ session_url: expect.stringMatching(`^${base}/s/demo/`) })
    } finally {
      server.close()
    }
  })

  it('serveTokenApp: a config object, no variables, listening once it is valid', async () => {
    expect(() =>
      serveTokenApp({
        config: { ...config, signing: { ...config.signing, cdnDomain: 'cdn.example.com' } },
      }),
    ).toThrow('config.signing.cdnDomain is still the placeholder')
    let url = ''
    const server = serveTokenApp({ config, env: {}, port: 0, signals: false }, (info) => {
      url = info.url
    })
    try {
      await once(server, 'listening')
      await expect.poll(() => url).not.toBe('')
      const res = await fetchFrom('127.0.0.23', `${url}token?video=demo`)
      const body = (await res.json()) as { token_ip: string; expires: number }
      const md5 = createHash('md5')
        .update(`777_demo_node-secret_${body.expires}_127.0.0.23`)
        .digest('base64url')
      expect(body.token_ip).toBe(md5)
    } finally {
      server.close()
    }
  })
})
