import { afterAll, beforeAll } from 'vitest'
import { type RedisServer, startRedisServer } from '../../test/redis-server.ts'
import { describeSessionStore } from '../session/store-conformance.test-suite.ts'
import { connectRedis, type RedisClient } from './connect-redis.ts'
import { redisSessionStore } from './redis-session-store.ts'

// The conformance suite against a real redis-server. Redis keeps real time (keys die at their
// EXPIREAT, on the server's clock, this machine's): advancing the clock sleeps, and there is no
// grace, a key being gone the second its `untilSeconds` has passed. The peer is a second client
// of the same server, as a second instance of the backend has.
let redis: RedisServer
let first: RedisClient
let second: RedisClient
const prefix = `conformance-${Date.now()}:`

beforeAll(async () => {
  redis = await startRedisServer()
  ;[first, second] = await Promise.all([connectRedis(redis.url), connectRedis(redis.url)])
})

afterAll(async () => {
  first?.destroy()
  second?.destroy()
  await redis?.stop()
})

const nowSeconds = () => Math.floor(Date.now() / 1000)

describeSessionStore('redisSessionStore (redis-server)', {
  make: () => redisSessionStore(first, { prefix }),
  clock: {
    now: nowSeconds,
    async advance(seconds) {
      // to the start of the target second (+ a margin), so the test has that whole second
      const target = (nowSeconds() + seconds) * 1000 + 20
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, target - Date.now())))
    },
    graceSeconds: 0,
  },
  peer: () => redisSessionStore(second, { prefix }),
})
