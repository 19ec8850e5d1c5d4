import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { Server } from 'node:http'
import { createServer, type Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeAddresses, fetchFrom } from '../test/from-address.ts'
import {
  CLUSTER_START_TIMEOUT_MS,
  type RedisCluster,
  startRedisCluster,
} from '../test/redis-cluster.ts'
import { freePort, type RedisServer, startRedisServer } from '../test/redis-server.ts'
import { asViewer, streamConfig } from '../test/streams.ts'
import { ConfigError, configFromEnv, type TokenConfigInput, tokenConfig } from './config.ts'
import { REDIS_START_TIMEOUT_MS, type ServeTokenAppOptions, serveTokenApp } from './node.ts'

// serveTokenApp scaled out: two instances in this process (signals: false, so neither touches
// the process's signals) sharing a real Debian redis-server on a free loopback port.
let redis: RedisServer

beforeAll(async () => {
  redis = await startRedisServer()
})
afterAll(() => Promise.all([redis.stop(), closeAddresses()]))

const ADMIN = 'scale-out-admin-token-of-32-chars!!'
const signing = {
  clientId: '12345',
  secretKey: 'scale-out-secret',
  cdnDomain: 'cdn.scale.test',
  cdnDomainIp: 'cdn-ip.scale.test',
}
const config = (more: Partial<TokenConfigInput> = {}): TokenConfigInput => ({
  signing,
  auth: { mode: 'none' },
  session: { secret: 'scale-out-session-secret-32-chars!!', adminToken: ADMIN, binding: 'none' },
  ...more,
})
const redisUrl = () => `${redis.url}/0`
/** The variables of `config()`, as an operator sets them. */
const sessionsEnv = {
  CLIENT_ID: signing.clientId,
  SECRET_KEY: signing.secretKey,
  CDN_DOMAIN: signing.cdnDomain,
  CDN_DOMAIN_IP: signing.cdnDomainIp,
  AUTH_MODE: 'none',
  SESSION_SECRET: 'scale-out-session-secret-32-chars!!',
  SESSION_ADMIN_TOKEN: ADMIN,
  SESSION_BINDING: 'none',
}

/** One instance, resolved when it listens; its `log` lines kept. */
async function instance(options: ServeTokenAppOptions) {
  const logged: string[] = []
  let server: Server | undefined
  const base = await new Promise<string>((resolve, reject) => {
    server = serveTokenApp(
      {
        port: 0,
        signals: false,
        audit: () => undefined,
        log: (line) => logged.push(line),
        ...options,
      },
      ({ url }) => resolve(url),
    ) as Server
    server.once('error', reject)
  })
  const stop = async () => {
    const open = server
    if (!open?.listening) return
    open.closeAllConnections()
    await new Promise((resolve) => open.close(resolve))
  }
  return { base, logged, stop }
}

const sidOf = (sessionUrl: string) =>
  JSON.parse(Buffer.from(sessionUrl.split('/')[5]?.split('.')[1] ?? '', 'base64url').toString())
    .sid as string

/**
 * A session issued through `a` and played, revoked through `b`: the answer `a` then gives its leaf
 * (after the second `a` trusts its last "not revoked", REVOCATION_CACHE_MS).
 */
async function revokedElsewhere(a: string, b: string): Promise<Response> {
  const issued = await fetch(`${a}session?video=demo&type=vod`)
  expect(issued.status).toBe(200)
  const { session_url: sessionUrl } = (await issued.json()) as { session_url: string }
  const leaf = sessionUrl.replace(/master\.m3u8$/, 'v0/seg_001.ts')
  expect((await fetch(leaf, { redirect: 'manual' })).status).toBe(302)
  const revoked = await fetch(`${b}sessions/revoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: sidOf(sessionUrl) }),
  })
  expect(revoked.status).toBe(200)
  await new Promise((resolve) => setTimeout(resolve, 1200))
  return fetch(leaf, { redirect: 'manual' })
}

describe('serveTokenApp with REDIS_URL: instances share their sessions', {
  timeout: 30_000,
}, () => {
  it('a session issued by A, revoked through B, is refused by A', async () => {
    const a = await instance({ config: config({ redis: { url: redisUrl() } }) })
    // B reads the variable the way an operator sets it: the environment
    const b = await instance({
      env: { ...sessionsEnv, REDIS_URL: redisUrl() },
    })
    try {
      const refused = await revokedElsewhere(a.base, b.base)
      expect(refused.status).toBe(403)
      expect(await refused.json()).toEqual({ error: 'session revoked' })
      expect(a.logged).toEqual([])
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })

  it('counts one rate limit across the instances', async () => {
    const limited = config({ redis: { url: redisUrl() }, rateLimit: { requests: 3 } })
    const a = await instance({ config: limited })
    const b = await instance({ config: limited })
    try {
      const statuses = []
      for (const base of [a.base, b.base, a.base, b.base])
        statuses.push((await fetchFrom('127.0.0.23', `${base}token?video=demo`)).status)
      expect(statuses).toEqual([200, 200, 200, 429])
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })

  it("counts one viewer's streams across the instances (STREAM_LIMIT)", async () => {
    const limited = { ...streamConfig({ limit: 2 }), redis: { url: redisUrl() } }
    const a = await instance({ config: limited })
    const b = await instance({ config: limited })
    try {
      const init = await asViewer(`scale-out-${Date.now()}`)
      const statuses = []
      for (const base of [a.base, b.base, a.base])
        statuses.push((await fetch(`${base}token?video=demo`, init)).status)
      expect(statuses).toEqual([200, 200, 409])
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })

  it('Redis down: new tokens and new networks fail closed (503), a playing session plays on', async () => {
    const a = await instance({
      config: config({
        redis: { url: redisUrl() },
        rateLimit: { requests: 100 },
        session: { secret: 'scale-out-session-secret-32-chars!!', binding: 'prefix' },
      }),
    })
    // two networks as the sockets see them (SESSION_BINDING prefix: two /24s)
    const home = (url: string) => fetchFrom('127.0.0.10', url, { redirect: 'manual' })
    const away = (url: string) => fetchFrom('127.1.0.50', url, { redirect: 'manual' })
    const token = () => home(`${a.base}token?video=demo`)
    let down = false
    try {
      const issued = await home(`${a.base}session?video=demo&type=vod`)
      expect(issued.status).toBe(200)
      const { session_url: sessionUrl } = (await issued.json()) as { session_url: string }
      const leaf = sessionUrl.replace(/master\.m3u8$/, 'v0/seg_001.ts')
      expect((await home(leaf)).status).toBe(302)

      await redis.stop()
      down = true
      const refused = await token()
      expect(refused.status).toBe(503)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
      expect((await away(leaf)).status).toBe(503)
      // seen not revoked a moment ago: trusted through a short outage (STORE_OUTAGE_TRUST_MS)
      expect((await home(leaf)).status).toBe(302)

      await redis.start()
      down = false
      const deadline = Date.now() + 10_000
      let status = 0
      while (status !== 200 && Date.now() < deadline) {
        status = (await token()).status
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(status).toBe(200)
    } finally {
      if (down) await redis.start()
      await a.stop()
    }
  })

  it('without REDIS_URL, each process has its own: B cannot revoke what A issued', async () => {
    const a = await instance({ config: config() })
    const b = await instance({ config: config() })
    try {
      const { session_url: sessionUrl } = (await (
        await fetch(`${a.base}session?video=demo&type=vod`)
      ).json()) as { session_url: string }
      const revoked = await fetch(`${b.base}sessions/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: sidOf(sessionUrl) }),
      })
      expect(revoked.status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 1200))
      const leaf = sessionUrl.replace(/master\.m3u8$/, 'v0/seg_001.ts')
      expect((await fetch(leaf, { redirect: 'manual' })).status).toBe(302)
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })
})

describe('serveTokenApp with REDIS_CLUSTER=true: instances share their sessions on a cluster', {
  timeout: 30_000,
}, () => {
  let cluster: RedisCluster
  beforeAll(async () => {
    cluster = await startRedisCluster()
  }, CLUSTER_START_TIMEOUT_MS)
  afterAll(() => cluster?.stop())

  it('a session issued by A, revoked through B, is refused by A; one rate limit', async () => {
    // each instance knows one node of the three: it discovers the others
    const a = await instance({
      config: config({
        redis: { url: cluster.urls[0] as string, cluster: true },
        rateLimit: { requests: 3 },
      }),
    })
    const b = await instance({
      env: {
        ...sessionsEnv,
        RATE_LIMIT_REQUESTS: '3',
        REDIS_URL: `${cluster.urls[2]}/0`,
        REDIS_CLUSTER: 'true',
      },
    })
    try {
      expect((await revokedElsewhere(a.base, b.base)).status).toBe(403)
      const statuses = []
      for (const base of [a.base, b.base, a.base, b.base])
        statuses.push((await fetchFrom('127.0.0.24', `${base}token?video=demo`)).status)
      expect(statuses).toEqual([200, 200, 200, 429])
      expect([...a.logged, ...b.logged]).toEqual([])
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })
})

describe('REDIS_URL is validated like every variable', () => {
  const env = {
    CLIENT_ID: '12345',
    SECRET_KEY: 'scale-out-secret',
    CDN_DOMAIN: 'cdn.scale.test',
    CDN_DOMAIN_IP: 'cdn-ip.scale.test',
    AUTH_MODE: 'none',
  }

  it.each(['http://127.0.0.1:6379', 'redis:/nohost', 'not a url', '127.0.0.1:6379'])(
    '%j is a ConfigError naming REDIS_URL',
    (value) => {
      const error = (() => {
        try {
          configFromEnv({ ...env, REDIS_URL: value })
        } catch (caught) {
          return caught
        }
      })()
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).variable).toBe('REDIS_URL')
      expect((error as ConfigError).message).toContain('REDIS_URL must be a redis:// or rediss://')
      expect((error as ConfigError).message).not.toContain(value)
    },
  )

  it('a password in a bad URL is never in the message, and serveTokenApp throws before listening', () => {
    const bad = 'https://user:hunter2-secret@redis.internal:6379'
    expect(() => serveTokenApp({ env: { ...env, REDIS_URL: bad }, signals: false })).toThrow(
      /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/,
    )
    try {
      serveTokenApp({ env: { ...env, REDIS_URL: bad }, signals: false })
    } catch (error) {
      expect(String(error)).not.toContain('hunter2')
    }
  })

  it('reads redis:// and rediss:// URLs; the object form is config.redis.url', () => {
    expect(
      configFromEnv({ ...env, REDIS_URL: 'rediss://:pw@redis.internal:6380/2' }).redis,
    ).toEqual({ url: 'rediss://:pw@redis.internal:6380/2' })
    expect(configFromEnv(env).redis).toBeUndefined()
    expect(tokenConfig(config({ redis: { url: 'redis://10.0.0.5' } })).redis).toEqual({
      url: 'redis://10.0.0.5',
    })
    expect(() => tokenConfig(config({ redis: { url: 'tcp://10.0.0.5' } }))).toThrow(
      'config.redis.url must be a redis:// or rediss:// URL',
    )
  })

  it('REDIS_CLUSTER: true or false, with REDIS_URL naming database 0', () => {
    const url = 'redis://:pw@redis-node-1.internal:6379'
    expect(configFromEnv({ ...env, REDIS_URL: url, REDIS_CLUSTER: 'true' }).redis).toEqual({
      url,
      cluster: true,
    })
    expect(configFromEnv({ ...env, REDIS_URL: url, REDIS_CLUSTER: 'false' }).redis).toEqual({
      url,
    })
    const errors: Array<[Record<string, string>, string]> = [
      [{ REDIS_CLUSTER: 'yes', REDIS_URL: url }, 'REDIS_CLUSTER must be "true"'],
      [{ REDIS_CLUSTER: 'true' }, 'REDIS_CLUSTER needs REDIS_URL'],
      [{ REDIS_CLUSTER: 'true', REDIS_URL: `${url}/2` }, 'REDIS_URL must name database 0'],
    ]
    for (const [more, message] of errors)
      expect(() => configFromEnv({ ...env, ...more }), message).toThrow(message)
    expect(() => tokenConfig(config({ redis: { url: `${url}/1`, cluster: true } }))).toThrow(
      'config.redis.url must name database 0 with config.redis.cluster',
    )
  })
})

describe('a Redis that does not answer at start', { timeout: 30_000 }, () => {
  it('fails within the bound, its message without the password; nothing listens', async () => {
    // accepts the connection and never says a word: only the start's own deadline ends the wait
    const sockets: Socket[] = []
    const silent = createServer((socket) => sockets.push(socket)).listen(0, '127.0.0.1')
    await once(silent, 'listening')
    const { port } = silent.address() as { port: number }
    const url = `redis://admin:pa55-w0rd-x9@127.0.0.1:${port}`
    const started = Date.now()
    const server = serveTokenApp({
      config: config({ redis: { url } }),
      port: 0,
      signals: false,
      audit: () => undefined,
      log: () => undefined,
    }) as Server
    const [error] = (await once(server, 'error')) as [Error]
    const took = Date.now() - started
    try {
      expect(took).toBeLessThan(REDIS_START_TIMEOUT_MS + 2000)
      expect(error.message).toContain('cannot connect to redis')
      expect(`${error.message} ${error.stack}`).not.toContain('pa55-w0rd-x9')
      expect(`${error.message}`).not.toContain(url)
      expect(server.listening).toBe(false)
    } finally {
      for (const socket of sockets) socket.destroy()
      silent.close()
    }
  })

  it('proj-token-backend exits 1 (retryable, not 2) when Redis refuses, without the URL or its password', async () => {
    const closed = await freePort()
    const child = spawn(process.execPath, [join(import.meta.dirname, 'bin.ts'), '--port', '0'], {
      env: {
        PATH: process.env.PATH ?? '',
        CLIENT_ID: '12345',
        SECRET_KEY: 'scale-out-secret',
        CDN_DOMAIN: 'cdn.scale.test',
        CDN_DOMAIN_IP: 'cdn-ip.scale.test',
        AUTH_MODE: 'none',
        REDIS_URL: `redis://:s3cr3t-pass-q7@127.0.0.1:${closed}`,
      },
    })
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += chunk
    })
    child.stderr.on('data', (chunk) => {
      output += chunk
    })
    const [code] = await once(child, 'exit')
    expect(code).toBe(1)
    expect(output).toContain('proj-token-backend: cannot connect to redis')
    expect(output).not.toContain('s3cr3t-pass-q7')
    expect(output).not.toContain('listening')
  })
})

describe('the warning about unshared state', { timeout: 30_000 }, () => {
  const WARNING = /several instances without REDIS_URL: session revocations, .* set REDIS_URL/

  it('is logged once with several instances and no REDIS_URL', async () => {
    const one = await instance({ config: config(), instances: 2 })
    await one.stop()
    expect(one.logged.filter((line) => WARNING.test(line))).toHaveLength(1)
  })

  it('is not logged with REDIS_URL, nor for a single instance', async () => {
    const shared = await instance({ config: config({ redis: { url: redisUrl() } }), instances: 2 })
    const single = await instance({ config: config(), instances: 1 })
    await Promise.all([shared.stop(), single.stop()])
    expect(shared.logged).toEqual([])
    expect(single.logged).toEqual([])
  })

  it('reads INSTANCES when no count is given; a bad one is a ConfigError naming it', async () => {
    const before = process.env.INSTANCES
    try {
      process.env.INSTANCES = '3'
      const counted = await instance({ config: config() })
      await counted.stop()
      expect(counted.logged.some((line) => WARNING.test(line))).toBe(true)
      process.env.INSTANCES = 'many'
      expect(() => serveTokenApp({ config: config(), signals: false })).toThrow(
        'INSTANCES must be a whole number of instances, 1 or more',
      )
    } finally {
      if (before === undefined) delete process.env.INSTANCES
      else process.env.INSTANCES = before
    }
  })
})
