import { sign } from 'hono/jwt'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { loopbackKeyServer, type TestKeyServer, testJwks } from '../test/jwks.ts'
import { createTokenApp } from './app.ts'

// The cache serves Node too: its tests run here as well as in workerd, and here the key server is
// also a real HTTP server on a loopback port (see jwks-cache.test.ts).
import './jwks-cache.test.ts'

/** The token backend's variables with its keys at `url`. */
const jwksEnv = (url: string) => ({
  SECRET_KEY: 'node-secret',
  CLIENT_ID: '777',
  CDN_DOMAIN: 'cdn.node.test',
  CDN_DOMAIN_IP: 'cdn-ip.node.test',
  IP_HEADERS: 'x-real-ip',
  AUTH_MODE: 'jwt',
  JWT_JWKS_URL: url,
})

describe('GET /token on Node with JWT_JWKS_URL: the key server down, then back', () => {
  let server: TestKeyServer | undefined
  afterEach(() => server?.close())

  it('503 + Retry-After while it is down; back: 50 concurrent valid viewers get 200, from one fetch', async () => {
    const { publicJwk, privateJwk } = await testJwks()
    server = await loopbackKeyServer({ keys: [publicJwk] })
    server.mode = 'down'
    const env = jwksEnv(server.url)
    const app = createTokenApp({ audit: () => undefined })
    // with the JWK's alg, hono's sign puts its kid in the header
    const token = await sign(
      { videos: ['demo'], exp: Math.floor(Date.now() / 1000) + 300 },
      privateJwk as never,
      'ES256',
    )
    const ask = () =>
      app.request(
        '/token?video=demo',
        { headers: { authorization: `Bearer ${token}`, 'x-real-ip': '192.0.2.1' } },
        env,
      )
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const down = await ask()
    expect(logged.mock.calls.map(([line]) => String(line))).toEqual([
      expect.stringMatching(/^token-backend: JWKS fetch failed \(no keys\)/),
    ])
    logged.mockRestore()
    expect(down.status).toBe(503)
    expect(down.headers.get('retry-after')).toBe('1')
    expect(await down.json()).toEqual({ error: expect.stringContaining('key server') })
    // back within the second after that failed fetch: no refusal window, one fetch for all
    server.mode = 'up'
    const hits = server.hits
    const answers = await Promise.all(Array.from({ length: 50 }, ask))
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200))
    expect(server.hits - hits).toBe(1)
  })
})

describe('GET /token on Node with JWT_JWKS_URL: a remembered JWT and a key rotated out', () => {
  let server: TestKeyServer | undefined
  afterEach(async () => {
    vi.useRealTimers()
    await server?.close()
  })

  it('a JWT verified before is refused once the key set without its key is fetched', async () => {
    const { publicJwk, privateJwk } = await testJwks()
    const next = await testJwks()
    const keys: object[] = [publicJwk]
    server = await loopbackKeyServer({ keys })
    const env = jwksEnv(server.url)
    const app = createTokenApp({ audit: () => undefined })
    const token = await sign(
      { videos: ['demo'], exp: Math.floor(Date.now() / 1000) + 3600 },
      privateJwk as never,
      'ES256',
    )
    const ask = async () => {
      const headers = { authorization: `Bearer ${token}`, 'x-real-ip': '192.0.2.1' }
      return (await app.request('/token?video=demo', { headers }, env)).status
    }
    // verified, then remembered
    expect([await ask(), await ask()]).toEqual([200, 200])
    expect(server.hits).toBe(1)
    // the key server rotates: only the next key; the cache's 5 minutes pass
    keys.splice(0, keys.length, { ...next.publicJwk, kid: 'next-key' })
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 301_000 })
    expect(await ask()).toBe(401)
    expect(server.hits).toBe(2)
  })
})
