import { once } from 'node:events'
import { type AddressInfo, createServer } from 'node:net'
import { createClient } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  freePort,
  type RedisServer,
  reconnected,
  startRedisServer,
} from '../../test/redis-server.ts'
import { nowSeconds, storedSession } from '../../test/stored-session.ts'
import { StoreUnavailableError } from '../store-unavailable.ts'
import { connectRedis, type RedisClient } from './connect-redis.ts'
import type { RedisCommandClient } from './redis-command.ts'
import { redisLimit } from './redis-limit.ts'
import { redisSessionStore } from './redis-session-store.ts'

// A real Debian redis-server on a free loopback port, without persistence; three clients stand for
// three instances of the backend.
let redis: RedisServer
let clients: RedisClient[] = []
const logged: string[] = []

const url = () => redis.url
const session = storedSession
let prefixes = 0
const freshPrefix = () => `test-${++prefixes}-${Date.now()}:`
const keysOf = async (prefix: string) =>
  (await clients[0]?.sendCommand(['KEYS', `${prefix}*`])) as string[]

beforeAll(async () => {
  redis = await startRedisServer()
  clients = await Promise.all(
    [1, 2, 3].map((i) =>
      connectRedis(url(), { log: i === 1 ? (line) => logged.push(line) : () => {} }),
    ),
  )
})

afterAll(async () => {
  await Promise.all(clients.map((client) => client.destroy()))
  await redis.stop()
})

describe('redisSessionStore', () => {
  it('admits exactly max of 50 simultaneous distinct networks across three instances', async () => {
    const prefix = freshPrefix()
    const stores = clients.map((client) => redisSessionStore(client, { prefix }))
    const s = session('s-race')
    const networks = Array.from({ length: 50 }, (_, i) => `198.51.100.${i}`)
    const verdicts = await Promise.all(
      networks.map((network, i) => stores[i % 3]?.admitNetwork(s, network, 2)),
    )
    const admitted = networks.filter((_, i) => verdicts[i])
    expect(admitted).toHaveLength(2)
    const members = (await clients[0]?.sendCommand([
      'SMEMBERS',
      `${prefix}session:s-race:networks`,
    ])) as string[]
    expect(members.sort()).toEqual([...admitted].sort())
    // an admitted network stays admitted (from any instance), the others stay refused
    for (const store of stores) {
      expect(await store.admitNetwork(s, admitted[0] as string, 2)).toBe(true)
      expect(await store.admitNetwork(s, admitted[1] as string, 2)).toBe(true)
      expect(await store.admitNetwork(s, '203.0.113.1', 2)).toBe(false)
    }
    // sessions count separately
    expect(await stores[1]?.admitNetwork(session('s-other'), '203.0.113.1', 2)).toBe(true)
  })

  it('revokes one session, through another instance than the one that asks', async () => {
    const prefix = freshPrefix()
    const [a, b] = clients.map((client) => redisSessionStore(client, { prefix }))
    const s = session('s-1', { sub: 'viewer-1' })
    expect(await b?.isRevoked(s)).toBe(false)
    await a?.revokeSession('s-1', s.exp)
    expect(await b?.isRevoked(s)).toBe(true)
    expect(await b?.isRevoked(session('s-2', { sub: 'viewer-1' }))).toBe(false)
    expect(await b?.isRevoked(session('s-1'))).toBe(true) // without its viewer too
  })

  it("revokes a viewer's sessions issued at or before the revocation, not later ones", async () => {
    const prefix = freshPrefix()
    const [a, b] = clients.map((client) => redisSessionStore(client, { prefix }))
    const at = nowSeconds()
    const before = session('s-before', { sub: 'viewer-2', iat: at - 60 })
    const same = session('s-same', { sub: 'viewer-2', iat: at })
    const after = session('s-after', { sub: 'viewer-2', iat: at + 1 })
    await a?.revokeViewer('viewer-2', at, at + 3600)
    expect(await b?.isRevoked(before)).toBe(true)
    expect(await b?.isRevoked(same)).toBe(true)
    expect(await b?.isRevoked(after)).toBe(false)
    expect(await b?.isRevoked(session('s-x', { sub: 'viewer-3', iat: at - 60 }))).toBe(false)
    expect(await b?.isRevoked(session('s-y', { iat: at - 60 }))).toBe(false)
    // an older revocation arriving later does not undo a newer one, nor shorten its life
    await a?.revokeViewer('viewer-2', at - 120, at + 60)
    expect(await b?.isRevoked(before)).toBe(true)
    const key = `${prefix}viewer:viewer-2:revoked-at`
    expect(await clients[0]?.sendCommand(['EXPIRETIME', key])).toBe(at + 3600)
    // a newer one moves it forward
    await a?.revokeViewer('viewer-2', at + 1, at + 3600)
    expect(await b?.isRevoked(after)).toBe(true)
  })

  it('gives every key an expiry: the end of its session or revocation', async () => {
    const prefix = freshPrefix()
    const store = redisSessionStore(clients[0] as RedisClient, { prefix })
    const s = session('s-ttl', { sub: 'viewer-ttl' })
    await store.admitNetwork(s, '198.51.100.1', 2)
    await store.revokeSession('s-ttl', s.exp)
    await store.revokeViewer('viewer-ttl', s.iat, s.exp + 10)
    const keys = await keysOf(prefix)
    expect(keys.sort()).toEqual([
      `${prefix}session:s-ttl:networks`,
      `${prefix}session:s-ttl:revoked`,
      `${prefix}viewer:viewer-ttl:revoked-at`,
    ])
    for (const key of keys) {
      const ttl = (await clients[1]?.sendCommand(['TTL', key])) as number
      expect(ttl, key).toBeGreaterThan(0)
      expect(ttl, key).toBeLessThanOrEqual(3610)
    }
    expect(await clients[0]?.sendCommand(['EXPIRETIME', `${prefix}session:s-ttl:networks`])).toBe(
      s.exp,
    )
    // a session already expired leaves nothing behind
    const old = session('s-old', { iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 })
    await store.admitNetwork(old, '198.51.100.1', 2)
    await store.revokeSession('s-old', old.exp)
    expect(await keysOf(`${prefix}session:s-old`)).toEqual([])
  })
})

describe('redisLimit', () => {
  it('admits exactly `requests` across three instances and refuses the next with Retry-After', async () => {
    const prefix = freshPrefix()
    const limits = clients.map((client) =>
      redisLimit(client, { requests: 7, periodSeconds: 60, prefix }),
    )
    const verdicts = await Promise.all(
      Array.from({ length: 30 }, (_, i) => limits[i % 3]?.check('sub:viewer-1')),
    )
    expect(verdicts.filter((verdict) => verdict?.allowed)).toHaveLength(7)
    for (const verdict of verdicts)
      if (verdict && !verdict.allowed) {
        expect(verdict.retryAfter).toBeGreaterThanOrEqual(59)
        expect(verdict.retryAfter).toBeLessThanOrEqual(60)
      }
    expect(await limits[2]?.check('sub:viewer-1')).toMatchObject({ allowed: false })
    expect(await limits[2]?.check('sub:viewer-2')).toEqual({ allowed: true })
    const ttl = (await clients[0]?.sendCommand(['TTL', `${prefix}limit:sub:viewer-1`])) as number
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(60)
  })

  it('opens a new window when the old one ends', async () => {
    const prefix = freshPrefix()
    const limit = redisLimit(clients[0] as RedisClient, { requests: 1, periodSeconds: 1, prefix })
    expect(await limit.check('net:198.51.100.7')).toEqual({ allowed: true })
    expect(await limit.check('net:198.51.100.7')).toEqual({ allowed: false, retryAfter: 1 })
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect(await limit.check('net:198.51.100.7')).toEqual({ allowed: true })
  })
})

describe('connectRedis', () => {
  it('rejects with StoreUnavailableError, promptly, when no Redis listens', async () => {
    const started = performance.now()
    const nobody = `redis://:secret-password@127.0.0.1:${await freePort()}`
    const refused = await connectRedis(nobody, { log: () => {} }).catch((err: unknown) => err)
    expect(refused).toBeInstanceOf(StoreUnavailableError)
    expect((refused as Error).message).not.toContain('secret-password')
    expect(performance.now() - started).toBeLessThan(3000)
  })

  it('rejects within its timeout when a server accepts the connection and never answers', async () => {
    // a TCP listener that says nothing: the handshake (HELLO, AUTH) would wait for ever
    const silent = createServer(() => {}).listen(0, '127.0.0.1')
    await once(silent, 'listening')
    const { port } = silent.address() as AddressInfo
    const started = performance.now()
    const refused = await connectRedis(`redis://:secret-password@127.0.0.1:${port}`, {
      timeoutMs: 300,
      log: () => {},
    }).catch((err: unknown) => err)
    const waited = performance.now() - started
    silent.close()
    expect(refused).toBeInstanceOf(StoreUnavailableError)
    expect((refused as Error).message).not.toContain('secret-password')
    expect(waited).toBeGreaterThanOrEqual(250)
    expect(waited).toBeLessThan(2000)
  })
})

describe('with Redis down', () => {
  it('rejects every call with StoreUnavailableError within the timeout, and recovers when it returns', async () => {
    const prefix = freshPrefix()
    const client = clients[0] as RedisClient
    const store = redisSessionStore(client, { prefix, timeoutMs: 500 })
    const limit = redisLimit(client, { requests: 5, periodSeconds: 60, prefix, timeoutMs: 500 })
    // a client left with node-redis' defaults queues commands while offline: the timeout bounds it
    const queueing = createClient({ url: url(), socket: { reconnectStrategy: 50 } })
    queueing.on('error', () => {})
    await queueing.connect()
    const queued = redisSessionStore(queueing, { prefix, timeoutMs: 500 })
    const s = session('s-down', { sub: 'viewer-down' })
    expect(await store.admitNetwork(s, '198.51.100.1', 2)).toBe(true)

    await redis.stop()
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['admitNetwork', () => store.admitNetwork(s, '198.51.100.2', 2)],
      ['isRevoked', () => store.isRevoked(s)],
      ['revokeSession', () => store.revokeSession('s-down', s.exp)],
      ['revokeViewer', () => store.revokeViewer('viewer-down', s.iat, s.exp)],
      ['limit', () => limit.check('sub:viewer-down')],
      ['queued isRevoked', () => queued.isRevoked(s)],
      ['queued admitNetwork', () => queued.admitNetwork(s, '198.51.100.3', 2)],
    ]
    for (const [name, call] of calls) {
      const started = performance.now()
      await expect(call(), name).rejects.toBeInstanceOf(StoreUnavailableError)
      expect(performance.now() - started, name).toBeLessThan(3000)
    }
    // the queueing client held the command until the timeout, and says so
    await expect(queued.isRevoked(s)).rejects.toThrow('redis did not answer within 500 ms')

    await redis.start() // empty: no keys, no cached scripts
    await reconnected([client, queueing])
    expect(await store.admitNetwork(s, '198.51.100.2', 2)).toBe(true)
    // the new server knew no script: EVALSHA was refused and the script sent once with EVAL
    const stats = (await client.sendCommand(['INFO', 'commandstats'])) as string
    expect(stats).toMatch(/cmdstat_eval:calls=1,/)
    await store.revokeSession('s-down', s.exp)
    expect(await queued.isRevoked(s)).toBe(true)
    expect(await limit.check('sub:viewer-down')).toEqual({ allowed: true })
    queueing.destroy()
    // one line when the connection was lost, one when it came back: not one per retry
    expect(logged).toHaveLength(2)
    expect(logged[0]).toMatch(/^redis: connection lost/)
    expect(logged[1]).toBe('redis: connection back')
  })
})

describe('an operator write answered StoreUnavailableError', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300))

  it('never takes effect later: a hung Redis resumed reads the commands sent meanwhile', async () => {
    const prefix = freshPrefix()
    const client = clients[0] as RedisClient
    // a client with node-redis' defaults (offline queue) fares the same: the write is never sent
    const queueing = createClient({ url: url(), socket: { reconnectStrategy: 50 } })
    queueing.on('error', () => {})
    await queueing.connect()
    const stores = [client, queueing].map((c) => redisSessionStore(c, { prefix, timeoutMs: 300 }))
    const s = session('s-hung', { sub: 'viewer-hung' })
    // the server knows the scripts (EVALSHA would otherwise be refused, not run, after the pause)
    await stores[0]?.revokeSession('s-warm', s.exp)
    await stores[0]?.drainCdn?.('cdn-warm', false)
    redis.pause()
    try {
      for (const store of stores) {
        await expect(store.revokeSession('s-hung', s.exp)).rejects.toBeInstanceOf(
          StoreUnavailableError,
        )
        await expect(store.revokeViewer('viewer-hung', s.iat, s.exp)).rejects.toBeInstanceOf(
          StoreUnavailableError,
        )
        await expect(store.drainCdn?.('cdn-hung', true)).rejects.toBeInstanceOf(
          StoreUnavailableError,
        )
      }
    } finally {
      redis.resume()
    }
    await settle() // Redis has read and run everything in its sockets by now
    for (const store of stores) {
      expect(await store.isRevoked(s)).toBe(false)
      expect(await store.drainedCdns?.()).toEqual([])
    }
    // a retry after recovery is always safe, and takes effect
    await stores[0]?.revokeSession('s-hung', s.exp)
    expect(await stores[1]?.isRevoked(s)).toBe(true)
    queueing.destroy()
  })

  it('never takes effect later: a write held in the network past its deadline writes nothing', async () => {
    const prefix = freshPrefix()
    const client = clients[0] as RedisClient
    const heldMs = 500
    // the server's clock is read at once; the write (the second command) arrives `heldMs` late,
    // after the 300-ms timeout, as a network that stalls and comes back delivers it
    let sent = 0
    const late: RedisCommandClient = {
      async sendCommand(args) {
        if (++sent % 2 === 0) await new Promise((resolve) => setTimeout(resolve, heldMs))
        return client.sendCommand([...args])
      },
    }
    const store = redisSessionStore(late, { prefix, timeoutMs: 300 })
    const s = session('s-late', { sub: 'viewer-late' })
    await expect(store.revokeSession('s-late', s.exp)).rejects.toThrow(StoreUnavailableError)
    await expect(store.revokeViewer('viewer-late', s.iat, s.exp)).rejects.toThrow(
      StoreUnavailableError,
    )
    await new Promise((resolve) => setTimeout(resolve, heldMs + 100))
    const direct = redisSessionStore(client, { prefix })
    expect(await direct.isRevoked(s)).toBe(false)
    expect(await keysOf(prefix)).toEqual([])
  })
})
