import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startRedisCluster } from '../../test/redis-cluster.ts'
import { type RedisServer, reconnected, startRedisServer } from '../../test/redis-server.ts'
import type { StreamRequest } from '../streams/stream-ledger.ts'
import { connectRedis, type RedisClient } from './connect-redis.ts'
import { connectRedisCluster } from './connect-redis-cluster.ts'
import { redisLimit } from './redis-limit.ts'
import { redisSessionStore } from './redis-session-store.ts'
import { redisStreamStore } from './redis-stream-store.ts'
import { StoreUnavailableError } from './store-unavailable.ts'

// The stores against a real redis-server that is full, evicting or stalled: what an operator's
// Redis does on a bad day. Each must fail as an outage (503) and leave nothing behind that
// outlives it.
let redis: RedisServer
let client: RedisClient

beforeAll(async () => {
  redis = await startRedisServer()
  client = await connectRedis(redis.url, { log: () => {} })
})

afterAll(async () => {
  client?.destroy()
  await redis?.stop()
})

const fresh = () => `degraded-${crypto.randomUUID()}:`

/** A new stream of `limit` (no id: the client named none) or a proposed one (`id`), at `nowMs`. */
const start = (nowMs: number, newId: string, id?: string, limit = 1): StreamRequest => ({
  ...(id !== undefined && { id }),
  newId,
  lane: 'token',
  nowMs,
  untilMs: nowMs + 3_600_000,
  keepUntilMs: nowMs + 3_600_000,
  limit,
  policy: 'reject-newest',
  mode: 'enforce',
})

describe('a Redis at maxmemory with noeviction', () => {
  it('fails every write as unavailable (503), not as a bug (500), and answers again once freed', async () => {
    const prefix = fresh()
    const streams = redisStreamStore(client, { prefix })
    const sessions = redisSessionStore(client, { prefix })
    const limit = redisLimit(client, { requests: 5, periodSeconds: 60, prefix })
    const nowMs = Date.now()
    const exp = Math.floor(nowMs / 1000) + 600
    const session = { sid: 'full-session', exp, iat: exp - 600 }
    // the scripts are known first: a full server still runs EVALSHA, and refuses its first write
    await streams.admit('warm', start(nowMs, 'warm-stream-id-000000000'))
    await sessions.revokeSession('warm-session', exp)
    await sessions.admitNetwork(session, 'net-warm', 2)
    await limit.check('warm')
    await client.sendCommand(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction'])
    await client.sendCommand(['CONFIG', 'SET', 'maxmemory', '1'])
    try {
      const writes: Array<() => Promise<unknown>> = [
        () => streams.admit('full', start(nowMs, 'full-stream-id-000000000')),
        () => streams.end('warm', undefined, nowMs),
        () => sessions.revokeSession('full-session', exp),
        () => sessions.revokeViewer('full-viewer', nowMs / 1000, exp),
        () => sessions.admitNetwork(session, 'net-new', 2),
        () => limit.check('full'),
      ]
      const logged: unknown[] = []
      const log = vi.spyOn(console, 'error').mockImplementation((line) => void logged.push(line))
      try {
        for (const write of writes)
          await expect(write()).rejects.toBeInstanceOf(StoreUnavailableError)
      } finally {
        log.mockRestore()
      }
      // the connection stays up: one line tells the operator why, not one per request
      expect(logged).toEqual([
        expect.stringMatching(/^redis: OOM command not allowed .*answered 503/),
      ])
      // reads answer meanwhile: a playing session is still checked
      expect(await sessions.isRevoked(session)).toBe(false)
    } finally {
      await client.sendCommand(['CONFIG', 'SET', 'maxmemory', '0'])
    }
    expect((await streams.admit('full', start(nowMs, 'full-stream-id-000000000'))).kind).toBe(
      'admitted',
    )
  })
})

describe('a Redis that may evict keys', () => {
  it('is named at connect: every key has an expiry, so even volatile-lru takes revocations', async () => {
    const logged: string[] = []
    try {
      for (const policy of ['allkeys-lru', 'volatile-lru', 'noeviction']) {
        await client.sendCommand(['CONFIG', 'SET', 'maxmemory-policy', policy])
        const other = await connectRedis(redis.url, { log: (line) => logged.push(line) })
        other.destroy()
      }
    } finally {
      await client.sendCommand(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction'])
    }
    expect(logged).toHaveLength(2)
    expect(logged[0]).toMatch(/^redis: maxmemory-policy is allkeys-lru: .*noeviction/)
    expect(logged[1]).toMatch(/^redis: maxmemory-policy is volatile-lru: /)
  })

  it('on a cluster, each master that may evict is named', { timeout: 60_000 }, async () => {
    const cluster = await startRedisCluster()
    try {
      const [first] = cluster.urls
      const one = await connectRedis(first ?? '', { log: () => {} })
      await one.sendCommand(['CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru'])
      one.destroy()
      const logged: string[] = []
      const connected = await connectRedisCluster(cluster.urls, { log: (l) => logged.push(l) })
      connected.destroy()
      const port = new URL(first ?? '').port
      expect(logged).toEqual([expect.stringMatching(new RegExp(`allkeys-lru on [^ ]+:${port}:`))])
    } finally {
      await cluster.stop()
    }
  })
})

describe('a stream start answered 503 while Redis stalls', () => {
  it('holds no slot once Redis runs it after all, unless the client named its id', async () => {
    const prefix = fresh()
    const store = redisStreamStore(client, { prefix, timeoutMs: 300 })
    const nowMs = Date.now()
    await store.admit('warm', start(nowMs, 'warm-stream-id-000000000')) // EVALSHA runs after the pause
    redis.pause()
    try {
      const asked = [
        store.admit('stalled', start(nowMs, 'unnamed-stream-id-000000')),
        store.admit(
          'proposing',
          start(nowMs, 'proposed-stream-id-00000', 'proposed-stream-id-00000'),
        ),
      ]
      for (const answer of asked) await expect(answer).rejects.toBeInstanceOf(StoreUnavailableError)
    } finally {
      redis.resume()
    }
    await reconnected([client])
    // the start the server ran late is dropped: the viewer's next stream finds its slot
    const deadline = Date.now() + 5000
    while ((await store.list('stalled', Date.now())).length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await store.list('stalled', Date.now())).toEqual([])
    expect((await store.admit('stalled', start(Date.now(), 'next-stream-id-000000000'))).kind).toBe(
      'admitted',
    )
    // a proposed id stays: the player's retry names it and renews it, one stream
    const retried = await store.admit(
      'proposing',
      start(Date.now(), 'proposed-stream-id-00000', 'proposed-stream-id-00000'),
    )
    expect(retried.kind).toBe('renewed')
  })
})
