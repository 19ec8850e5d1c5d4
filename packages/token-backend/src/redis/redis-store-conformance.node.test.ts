import { afterAll, beforeAll } from 'vitest'
import { CLUSTER_START_TIMEOUT_MS, startRedisCluster } from '../../test/redis-cluster.ts'
import { startRedisServer } from '../../test/redis-server.ts'
import { describeSessionStore, targetSecondMs } from '../session/store-conformance.test-suite.ts'
import { connectRedis } from './connect-redis.ts'
import { connectRedisCluster } from './connect-redis-cluster.ts'
import type { RedisCommandClient } from './redis-command.ts'
import { redisSessionStore } from './redis-session-store.ts'

// The conformance suite against a real redis-server, and against a real three-shard Redis
// Cluster. Redis keeps real time (keys die at their EXPIREAT, on the server's clock, this
// machine's): advancing the clock sleeps, and there is no grace, a key being gone the second its
// `untilSeconds` has passed. The peer is a second client of the same server, as a second instance
// of the backend has.
type Client = RedisCommandClient & { destroy(): void }

const targets: Array<{
  name: string
  start: () => Promise<{ clients: () => Promise<Client>; stop: () => Promise<void> }>
}> = [
  {
    name: 'redisSessionStore (redis-server)',
    async start() {
      const redis = await startRedisServer()
      return { clients: () => connectRedis(redis.url), stop: () => redis.stop() }
    },
  },
  {
    name: 'redisSessionStore (Redis Cluster, three shards)',
    async start() {
      const redis = await startRedisCluster()
      return { clients: () => connectRedisCluster(redis.urls), stop: () => redis.stop() }
    },
  },
]

const nowSeconds = () => Math.floor(Date.now() / 1000)

for (const target of targets) {
  let stop: (() => Promise<void>) | undefined
  let first: Client
  let second: Client
  const prefix = `conformance-${Date.now()}:`

  beforeAll(async () => {
    const started = await target.start()
    stop = started.stop
    ;[first, second] = await Promise.all([started.clients(), started.clients()])
  }, CLUSTER_START_TIMEOUT_MS)

  afterAll(async () => {
    first?.destroy()
    second?.destroy()
    await stop?.()
  })

  describeSessionStore(target.name, {
    make: () => redisSessionStore(first, { prefix }),
    clock: {
      now: nowSeconds,
      async advance(seconds) {
        const atMs = targetSecondMs(nowSeconds(), seconds)
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, atMs - Date.now())))
      },
      graceSeconds: 0,
    },
    peer: () => redisSessionStore(second, { prefix }),
  })
}
