import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisCluster, startRedisCluster } from '../../test/redis-cluster.ts'
import { type RedisServer, startRedisServer } from '../../test/redis-server.ts'
import { describeStreamStore } from '../streams/stream-store-conformance.test-suite.ts'
import { connectRedis, type RedisClient } from './connect-redis.ts'
import { connectRedisCluster, type RedisClusterClient } from './connect-redis-cluster.ts'
import { redisCommand } from './redis-command.ts'
import { redisStreamStore } from './redis-stream-store.ts'

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

describe('on a three-shard Redis Cluster', () => {
  let cluster: RedisCluster | undefined
  let nodes: RedisClusterClient[] = []

  beforeAll(async () => {
    cluster = await startRedisCluster()
    const urls = cluster.urls
    nodes = await Promise.all([1, 2, 3].map(() => connectRedisCluster(urls)))
  })

  afterAll(async () => {
    for (const client of nodes) client.destroy()
    await cluster?.stop()
  })

  describeStreamStore('redisStreamStore (Redis Cluster, three shards)', {
    make: () => redisStreamStore(nodes[0] as RedisClusterClient, { prefix }),
    peers: async (count) =>
      nodes.slice(1, count + 1).map((client) => redisStreamStore(client, { prefix })),
  })
})
