import { ErrorReply, SocketClosedUnexpectedlyError } from 'redis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startRedisCluster } from '../../test/redis-cluster.ts'
import { type RedisServer, reconnected, startRedisServer } from '../../test/redis-server.ts'
import type { StreamRequest } from '../streams/stream-ledger.ts'
import { connectRedis, type RedisClient, warnIfEvicting } from './connect-redis.ts'
import { connectRedisCluster } from './connect-redis-cluster.ts'
import type { RedisCommandClient } from './redis-command.ts'
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

  it('a server still loading its data at connect is said so, not as a request "answered 503"', async () => {
    const loading: RedisCommandClient = {
      sendCommand: async () => {
        throw new ErrorReply('LOADING Redis is loading the dataset in memory')
      },
    }
    const logged: string[] = []
    const stderr: unknown[] = []
    const spy = vi.spyOn(console, 'error').mockImplementation((line) => void stderr.push(line))
    try {
      await warnIfEvicting(loading, (line) => logged.push(line), 1000, 'r1:6379')
    } finally {
      spy.mockRestore()
    }
    expect(stderr).toEqual([])
    expect(logged).toEqual([
      'redis: LOADING Redis is loading the dataset in memory on r1:6379 at connect; maxmemory-policy not checked',
    ])
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

describe('the retraction of a start answered 503', () => {
  /** How many scripts Redis ran so far (EVALSHA and EVAL). */
  const scriptsRun = async () => {
    const stats = String(await client.sendCommand(['INFO', 'commandstats']))
    const calls = (command: string) =>
      Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0)
    return calls('evalsha') + calls('eval')
  }

  it('is sent once, when Redis answers again, however long it stalled', async () => {
    const prefix = fresh()
    const store = redisStreamStore(client, { prefix, timeoutMs: 100 })
    const nowMs = Date.now()
    await store.admit('warm', start(nowMs, 'warm-stream-id-000000000')) // EVALSHA, not EVAL
    const before = await scriptsRun()
    redis.pause()
    try {
      await expect(
        store.admit('herd', start(nowMs, 'herd-stream-id-000000000')),
      ).rejects.toBeInstanceOf(StoreUnavailableError)
      // long enough for a retraction tried on a timer to be sent again and again meanwhile
      await new Promise((resolve) => setTimeout(resolve, 2000))
    } finally {
      redis.resume()
    }
    await reconnected([client]) // behind the start on its connection: the start has run
    const key = `${prefix}{streams:herd}`
    const leases = async () => {
      const record = await client.sendCommand(['GET', key])
      return record === null ? [] : JSON.parse(String(record)).streams
    }
    const deadline = Date.now() + 5000
    while ((await leases()).length > 0) {
      if (Date.now() > deadline) throw new Error('never retracted')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
    // the start, then its one retraction (INFO and GET run no script)
    expect((await scriptsRun()) - before).toBe(2)
    expect(await store.list('herd', Date.now())).toEqual([])
  })

  it("runs right behind its start: the client's retries during the stall evict no playing stream", async () => {
    const prefix = fresh()
    const store = redisStreamStore(client, { prefix, timeoutMs: 100 })
    const evicting = (nowMs: number, newId: string, id?: string): StreamRequest => ({
      ...start(nowMs, newId, id, 2),
      policy: 'evict-oldest',
    })
    // a server that knows the start's script but not the retraction's (restarted, failed over)
    await client.sendCommand(['SCRIPT', 'FLUSH'])
    const nowMs = Date.now()
    const playing = await store.admit('viewer', evicting(nowMs, 'playing-stream-id-000000'))
    expect(playing.kind).toBe('admitted')
    redis.pause()
    try {
      // the player's start and two retries, each answered 503 while Redis stalls
      for (const id of ['retry-0-stream-id-000000', 'retry-1-stream-id-000000', 'retry-2-id'])
        await expect(store.admit('viewer', evicting(Date.now(), id))).rejects.toBeInstanceOf(
          StoreUnavailableError,
        )
    } finally {
      redis.resume()
    }
    await reconnected([client])
    const deadline = Date.now() + 5000
    while ((await store.list('viewer', Date.now())).length > 1) {
      if (Date.now() > deadline) throw new Error('never retracted')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect((await store.list('viewer', Date.now())).map((lease) => lease.id)).toEqual([
      'playing-stream-id-000000',
    ])
    const renewed = await store.admit(
      'viewer',
      evicting(Date.now(), 'other-stream-id-00000000', 'playing-stream-id-000000'),
    )
    expect(renewed.kind).toBe('renewed')
  })

  it('run before its start lands (a connection lost, the start still on its way): the start takes no slot', async () => {
    const prefix = fresh()
    // the start's connection dies before its reply, as node-redis reports it; its bytes reach
    // Redis only after the retraction, which went on the new connection
    let held: string[] | undefined
    const losing: RedisCommandClient = {
      sendCommand: (args, options) => {
        if (
          held === undefined &&
          args[0] === 'EVALSHA' &&
          args.some((arg) => arg.endsWith('{streams:late}'))
        ) {
          held = [...args]
          return Promise.reject(new SocketClosedUnexpectedlyError())
        }
        return client.sendCommand([...args], options)
      },
    }
    const store = redisStreamStore(losing, { prefix })
    const nowMs = Date.now()
    await store.admit('warm', start(nowMs, 'warm-stream-id-000000000'))
    await expect(
      store.admit('late', start(nowMs, 'late-stream-id-000000000')),
    ).rejects.toBeInstanceOf(StoreUnavailableError)
    const key = `${prefix}{streams:late}`
    const deadline = Date.now() + 5000
    while (Number(await client.sendCommand(['EXISTS', key])) !== 1) {
      if (Date.now() > deadline) throw new Error('never retracted')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await client.sendCommand(held ?? []) // the start lands at last
    expect(await store.list('late', Date.now())).toEqual([])
    expect((await store.admit('late', start(Date.now(), 'next-stream-id-000000000'))).kind).toBe(
      'admitted',
    )
  })
})
