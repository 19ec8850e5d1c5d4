import { ErrorReply } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CLUSTER_START_TIMEOUT_MS,
  type RedisCluster,
  startRedisCluster,
} from '../../test/redis-cluster.ts'
import { type RedisServer, startRedisServer } from '../../test/redis-server.ts'
import { describeStreamStore } from '../streams/stream-store-conformance.test-suite.ts'
import { connectRedis, type RedisClient } from './connect-redis.ts'
import { connectRedisCluster, type RedisClusterClient } from './connect-redis-cluster.ts'
import { type RedisCommandClient, redisCommand } from './redis-command.ts'
import { redisStreamStore } from './redis-stream-store.ts'
import { StoreUnavailableError } from './store-unavailable.ts'

// The conformance suite against a real redis-server and a real three-shard Redis Cluster; the
// peers are further clients of the same server (or cluster), as further instances of the backend
// are (three instances race in the race tests).
let redis: RedisServer
let clients: RedisClient[] = []
const prefix = `streams-${Date.now()}:`

beforeAll(async () => {
  redis = await startRedisServer()
  clients = await Promise.all([1, 2, 3].map(() => connectRedis(redis.url)))
})

afterAll(async () => {
  for (const client of clients) client.destroy()
  await redis?.stop()
})

describeStreamStore('redisStreamStore (redis-server)', {
  make: () => redisStreamStore(clients[0] as RedisClient, { prefix }),
  peers: async (count) =>
    clients.slice(1, count + 1).map((client) => redisStreamStore(client, { prefix })),
})

it('keeps one key per viewer, in one hash tag, living as long as its last lease', async () => {
  const client = clients[0] as RedisClient
  const store = redisStreamStore(client, { prefix })
  const nowMs = Date.now()
  await store.admit('someone}odd', {
    newId: 'x'.repeat(22),
    lane: 'token',
    nowMs,
    untilMs: nowMs + 60_000,
    keepUntilMs: nowMs + 90_000,
    limit: 1,
    policy: 'reject-newest',
    mode: 'enforce',
  })
  const key = `${prefix}{streams:someone}odd}`
  const expiry = Number(await redisCommand(client, ['PEXPIRETIME', key], 1000))
  expect(expiry).toBe(nowMs + 90_000)
  expect(await store.end('someone}odd', undefined, nowMs)).toBe(1)
})

/** A start (no `id`) or a renewal of `id`, for `sub`, at `nowMs`. */
const ask = (nowMs: number, newId: string, id?: string, limit = 2) => ({
  ...(id !== undefined && { id }),
  newId,
  lane: 'token' as const,
  nowMs,
  untilMs: nowMs + 60_000,
  keepUntilMs: nowMs + 90_000,
  limit,
  policy: 'reject-newest' as const,
  mode: 'enforce' as const,
})

/** How many times Redis ran EVALSHA so far. */
async function evalshaCalls(client: RedisClient): Promise<number> {
  const stats = String(await client.sendCommand(['INFO', 'commandstats']))
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0)
}

it('sends the starts and renewals of one event-loop turn in two calls, each verdict its own', async () => {
  const client = clients[0] as RedisClient
  const store = redisStreamStore(client, { prefix: `${prefix}turn:` })
  const nowMs = Date.now()
  await store.admit('warm', ask(nowMs, 'warm-stream-id-0000000')) // the server knows the script
  const before = await evalshaCalls(client)
  const viewers = Array.from({ length: 20 }, (_, i) => `turn-viewer-${i}`)
  const started = await Promise.all(
    viewers.map((sub, i) => store.admit(sub, ask(nowMs, `stream-${i}`.padEnd(22, '0')))),
  )
  expect(started.map((verdict) => verdict.kind)).toEqual(viewers.map(() => 'admitted'))
  // the first at once, the other 19 together (fewer than one call holds; INFO is no EVALSHA)
  expect((await evalshaCalls(client)) - before).toBe(2)
  const renewed = await Promise.all(
    viewers.map((sub, i) => {
      const id = `stream-${i}`.padEnd(22, '0')
      return store.admit(sub, ask(nowMs + 1000, 'unused-id-000000000000', id))
    }),
  )
  expect(renewed.map((verdict) => verdict.kind)).toEqual(viewers.map(() => 'renewed'))
  expect(renewed.map((verdict) => verdict.kind === 'renewed' && verdict.lease.id)).toEqual(
    viewers.map((_, i) => `stream-${i}`.padEnd(22, '0')),
  )
})

it("a reply that is not the script's fails the requests it answers, and nothing else", async () => {
  const client = clients[0] as RedisClient
  const odd: RedisCommandClient = {
    sendCommand: async (args, options) =>
      args[0] === 'EVALSHA' ? 'OK' : client.sendCommand([...args], options),
  }
  const store = redisStreamStore(odd, { prefix: `${prefix}odd:` })
  const nowMs = Date.now()
  const answers = await Promise.allSettled(
    [0, 1, 2].map((i) => store.admit(`odd-${i}`, ask(nowMs, `odd-${i}`.padEnd(22, '0')))),
  )
  expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected', 'rejected'])
})

it("one viewer's unreadable record fails that viewer's request, not the others of its call", async () => {
  const client = clients[0] as RedisClient
  const store = redisStreamStore(client, { prefix: `${prefix}broken:` })
  await redisCommand(client, ['SET', `${prefix}broken:{streams:broken-1}`, 'not json'], 1000)
  const nowMs = Date.now()
  const answers = await Promise.allSettled(
    [0, 1, 2].map((i) => store.admit(`broken-${i}`, ask(nowMs, `broken-${i}`.padEnd(22, '0')))),
  )
  expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  expect((answers[1] as PromiseRejectedResult).reason).toBeInstanceOf(ErrorReply)
  expect(answers.map((answer) => answer.status === 'fulfilled' && answer.value.kind)).toEqual([
    'admitted',
    false,
    'admitted',
  ])
})

it('a Redis that refuses writes fails the shared call as unavailable (503), not as a bug', async () => {
  const client = clients[0] as RedisClient
  const store = redisStreamStore(client, { prefix: `${prefix}noreplicas:` })
  const nowMs = Date.now()
  // what a primary without its replicas (or a replica after a failover) answers every write
  await client.sendCommand(['CONFIG', 'SET', 'min-replicas-to-write', '1'])
  try {
    const answers = await Promise.allSettled(
      [0, 1, 2].map((i) => store.admit(`nr-${i}`, ask(nowMs, `nr-${i}`.padEnd(22, '0')))),
    )
    for (const answer of answers)
      expect((answer as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError)
  } finally {
    await client.sendCommand(['CONFIG', 'SET', 'min-replicas-to-write', '0'])
  }
})

it('batch: false (behind a sharding proxy): one call per request', async () => {
  const client = clients[0] as RedisClient
  const store = redisStreamStore(client, { prefix: `${prefix}alone:`, batch: false })
  const nowMs = Date.now()
  await store.admit('alone-warm', ask(nowMs, 'alone-warm'.padEnd(22, '0')))
  const before = await evalshaCalls(client)
  const started = await Promise.all(
    [0, 1, 2, 3, 4].map((i) => store.admit(`alone-${i}`, ask(nowMs, `alone-${i}`.padEnd(22, '0')))),
  )
  expect(started.map((verdict) => verdict.kind)).toEqual(Array(5).fill('admitted'))
  expect((await evalshaCalls(client)) - before).toBe(5)
})

it("applies one viewer's requests of one turn in the order asked: the limit holds inside a call", async () => {
  const store = redisStreamStore(clients[0] as RedisClient, { prefix: `${prefix}order:` })
  const nowMs = Date.now()
  const verdicts = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      store.admit('one-viewer', ask(nowMs, `order-${i}`.padEnd(22, '0'), undefined, 2)),
    ),
  )
  expect(verdicts.map((verdict) => verdict.kind)).toEqual([
    'admitted',
    'admitted',
    'refused',
    'refused',
    'refused',
    'refused',
  ])
  const refused = verdicts[5]
  expect(refused?.kind === 'refused' && refused.active.map((lease) => lease.id)).toEqual([
    'order-0'.padEnd(22, '0'),
    'order-1'.padEnd(22, '0'),
  ])
})

describe('on a three-shard Redis Cluster', () => {
  let cluster: RedisCluster | undefined
  let nodes: RedisClusterClient[] = []

  beforeAll(async () => {
    cluster = await startRedisCluster()
    const urls = cluster.urls
    nodes = await Promise.all([1, 2, 3].map(() => connectRedisCluster(urls)))
  }, CLUSTER_START_TIMEOUT_MS)

  afterAll(async () => {
    for (const client of nodes) client.destroy()
    await cluster?.stop()
  })

  it('a cluster client without `cluster`: Redis refuses the call over several slots, each request is sent alone', async () => {
    const cluster = nodes[0] as RedisClusterClient
    const bare = { sendCommand: cluster.sendCommand.bind(cluster) }
    const store = redisStreamStore(bare, { prefix: `${prefix}bare:` })
    const nowMs = Date.now()
    const viewers = Array.from({ length: 12 }, (_, i) => `bare-viewer-${i}`)
    const started = await Promise.all(
      viewers.map((sub, i) => store.admit(sub, ask(nowMs, `bare-${i}`.padEnd(22, '0')))),
    )
    expect(started.map((verdict) => verdict.kind)).toEqual(viewers.map(() => 'admitted'))
    const again = await Promise.all(
      viewers.map((sub, i) =>
        store.admit(sub, ask(nowMs, 'unused-id-000000000000', `bare-${i}`.padEnd(22, '0'))),
      ),
    )
    expect(again.map((verdict) => verdict.kind)).toEqual(viewers.map(() => 'renewed'))
  })

  describeStreamStore('redisStreamStore (Redis Cluster, three shards)', {
    make: () => redisStreamStore(nodes[0] as RedisClusterClient, { prefix }),
    peers: async (count) =>
      nodes.slice(1, count + 1).map((client) => redisStreamStore(client, { prefix })),
  })
})
