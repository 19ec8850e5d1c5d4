import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CLUSTER_START_TIMEOUT_MS,
  type RedisCluster,
  startRedisCluster,
} from '../../test/redis-cluster.ts'
import { freePort, reconnected } from '../../test/redis-server.ts'
import { nowSeconds, storedSession } from '../../test/stored-session.ts'
import { createTokenApp } from '../app.ts'
import { StoreUnavailableError } from '../store-unavailable.ts'
import { connectRedisCluster, type RedisClusterClient } from './connect-redis-cluster.ts'
import type { RedisCommandClient } from './redis-command.ts'
import { redisLimit } from './redis-limit.ts'
import { redisSessionStore } from './redis-session-store.ts'

// A real three-shard Redis Cluster (three redis-server --cluster-enabled, no replicas); three
// cluster clients stand for three instances of the backend.
let redis: RedisCluster
let clients: RedisClusterClient[] = []
const logged: string[] = []
let prefixes = 0
const freshPrefix = () => `cluster-${++prefixes}-${Date.now()}:`
const session = storedSession
const ping = (args: string[], options: { timeout: number }) =>
  promisify(execFile)('redis-cli', args, options)

beforeAll(async () => {
  redis = await startRedisCluster()
  clients = await Promise.all(
    [1, 2, 3].map((i) =>
      connectRedisCluster(redis.urls, { log: i === 1 ? (line) => logged.push(line) : () => {} }),
    ),
  )
}, CLUSTER_START_TIMEOUT_MS)

/** `PING` to each node by `redis-cli`, outside the clients under test. */
async function nodesAlive(urls: ReadonlyArray<string>): Promise<string> {
  const answers = await Promise.all(
    urls.map((url) =>
      ping(['-u', url, 'PING'], { timeout: 2000 }).then(
        ({ stdout }) => `${url} ${stdout.trim()}`,
        (err: unknown) => `${url} ${String(err)}`,
      ),
    ),
  )
  return answers.join(', ')
}

/** The node `client`'s slot table names for each key (its slot asked of the node at `url`). */
async function routes(client: RedisClusterClient, url: string, keys: string[]): Promise<string> {
  const table = client.cluster.slots as ReadonlyArray<{ master?: { address?: string } } | undefined>
  const answers = await Promise.all(
    keys.map(async (key) => {
      const { stdout } = await ping(['-u', url, 'CLUSTER', 'KEYSLOT', key], { timeout: 2000 })
      const slot = Number(stdout.trim())
      return `${key} slot ${slot} → ${table[slot]?.master?.address ?? 'none'}`
    }),
  )
  return answers.join(', ')
}

/**
 * A fresh prefix whose keys in the node-down test leave both outcomes possible with the node at
 * `url` stopped: a request with a key on it, and one with both keys on the others. The slots
 * follow the prefix, and the viewer keys differ in one character, so their slots lie close: for
 * about one prefix in forty every request had a key on the stopped node and none could answer.
 */
async function prefixAroundNode(client: RedisClusterClient, url: string): Promise<string> {
  const table = client.cluster.slots as ReadonlyArray<{ master?: { address?: string } } | undefined>
  const stopped = `:${new URL(url).port}`
  const onStopped = async (key: string) => {
    const slot = Number(await client.sendCommand(['CLUSTER', 'KEYSLOT', key]))
    return table[slot]?.master?.address?.endsWith(stopped) === true
  }
  for (let tries = 0; tries < 20; tries++) {
    const prefix = freshPrefix()
    const touches = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const keys = [`${prefix}session:s-${i}:revoked`, `${prefix}viewer:v-${i}:revoked-at`]
        return (await Promise.all(keys.map(onStopped))).includes(true)
      }),
    )
    if (touches.includes(true) && touches.includes(false)) return prefix
  }
  throw new Error(`no prefix of 20 spreads the test's keys around ${url}`)
}

afterAll(async () => {
  for (const client of clients) client.destroy()
  await redis?.stop()
})

describe('the Redis stores on a Redis Cluster', () => {
  it('spread their keys over the shards and admit exactly across three instances', async () => {
    const prefix = freshPrefix()
    const stores = clients.map((client) => redisSessionStore(client, { prefix }))
    const networks = Array.from({ length: 30 }, (_, i) => `198.51.100.${i}`)
    const verdicts = await Promise.all(
      networks.map((network, i) => stores[i % 3]?.admitNetwork(session('s-race'), network, 2)),
    )
    expect(verdicts.filter(Boolean)).toHaveLength(2)
    const limits = clients.map((client) =>
      redisLimit(client, { requests: 7, periodSeconds: 60, prefix }),
    )
    const counted = await Promise.all(
      Array.from({ length: 30 }, (_, i) => limits[i % 3]?.check('sub:viewer-1')),
    )
    expect(counted.filter((verdict) => verdict?.allowed)).toHaveLength(7)
    // sessions and viewers of many ids: their keys on every shard, each read where it lives
    // the viewers' sessions were issued before the revocation, in the second it names: made at
    // check time instead, one made after the clock's next second is (rightly) not revoked
    const issued = nowSeconds()
    for (let i = 0; i < 12; i++) {
      await stores[i % 3]?.revokeSession(`s-${i}`, issued + 60)
      await stores[i % 3]?.revokeViewer(`viewer-${i}`, issued, issued + 60)
    }
    for (let i = 0; i < 12; i++) {
      expect(await stores[(i + 1) % 3]?.isRevoked(session(`s-${i}`))).toBe(true)
      const ofViewer = session(`x-${i}`, { sub: `viewer-${i}`, iat: issued })
      expect(await stores[(i + 1) % 3]?.isRevoked(ofViewer)).toBe(true)
    }
    const shards = await Promise.all(
      redis.nodes.map(async (_, n) => {
        const node = clients[0]?.cluster.masters[n]
        const direct = node && (await clients[0]?.cluster.nodeClient(node))
        return (await direct?.sendCommand(['KEYS', `${prefix}*`])) as string[]
      }),
    )
    for (const keys of shards) expect(keys.length).toBeGreaterThan(0)
  })

  it('with a node down: its keys fail with StoreUnavailableError in bounded time (503), the others answer, all recovers', async () => {
    const client = clients[0] as RedisClusterClient
    const prefix = await prefixAroundNode(client, redis.urls[0] ?? '')
    // each GET's own outcome, for the message below (the store answers one per pair of keys)
    const sent: string[] = []
    const recorded: RedisCommandClient = {
      sendCommand: (args, options) =>
        client.sendCommand(args, options).then(
          (reply) => {
            sent.push(`${args[1]} ok`)
            return reply
          },
          (err: unknown) => {
            sent.push(`${args[1]} ${String(err)}`)
            throw err
          },
        ),
    }
    const store = redisSessionStore(recorded, { prefix, timeoutMs: 500 })
    // what each node's connection went through meanwhile (a live node's socket closing?)
    const events: string[] = []
    const t0 = performance.now()
    const seen =
      (name: string) =>
      (...args: unknown[]) => {
        const node = args.find(
          (a): a is { port?: number } => typeof a === 'object' && a !== null && 'port' in a,
        )
        const err = args.find((a): a is Error => a instanceof Error)
        events.push(
          `${(performance.now() - t0).toFixed(1)} ms ${name} :${node?.port}${err ? ` ${err.message}` : ''}`,
        )
      }
    for (const name of [
      'node-error',
      'node-disconnect',
      'node-reconnecting',
      'node-ready',
      'node-connect',
    ])
      client.cluster.on(name, seen(name))
    const down = redis.nodes[0]
    await down?.stop()
    const causes: string[] = []
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const started = performance.now()
        const outcome = await store.isRevoked(session(`s-${i}`, { sub: `v-${i}` })).then(
          () => 'answered',
          (err: unknown) => {
            causes.push(`s-${i}: ${String(err instanceof Error ? (err.cause ?? err) : err)}`)
            return err instanceof StoreUnavailableError ? 'unavailable' : String(err)
          },
        )
        expect(performance.now() - started).toBeLessThan(3000)
        return outcome
      }),
    )
    expect(outcomes).toContain('unavailable')
    // this failed three times in full runs, the last time with every viewer key on the stopped
    // node (prefixAroundNode now rules that out): should it fail again, name what each request
    // met and whether the other nodes still answer
    if (!outcomes.includes('answered'))
      expect.fail(
        `no request answered with one node of three down (${redis.urls[0]}): ${causes.join('; ')}; the others: ${await nodesAlive(redis.urls.slice(1))}; where this client sends the keys: ${await routes(client, redis.urls[1] ?? '', [`${prefix}session:s-0:revoked`, `${prefix}viewer:v-0:revoked-at`, `${prefix}session:s-1:revoked`, `${prefix}viewer:v-1:revoked-at`])}; each GET: ${sent.join('; ')}; the nodes' connections: ${events.join('; ')}`,
      )
    expect(outcomes.filter((o) => o !== 'unavailable' && o !== 'answered')).toEqual([])
    const app = createTokenApp({
      config: {
        signing: {
          clientId: '12345',
          secretKey: 'cluster-secret-4b1f',
          cdnDomain: 'cdn.cluster.test',
          cdnDomainIp: 'cdn-ip.cluster.test',
        },
        auth: { mode: 'none' },
        ipHeaders: ['x-real-ip'],
        rateLimit: { requests: 100, periodSeconds: 60 },
      },
      rateLimit: (limit) => redisLimit(client, { ...limit, prefix, timeoutMs: 500 }),
      audit: () => {},
    })
    const statuses = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const response = await app.request('http://token.test/token?video=demo', {
          headers: { 'x-real-ip': `203.0.113.${i}` },
        })
        if (response.status === 503) {
          expect(response.headers.get('retry-after')).toBe('1')
          expect(await response.json()).toEqual({
            error: 'shared state unavailable: retry after 1 s',
          })
        }
        return response.status
      }),
    )
    expect(statuses).toContain(503)
    expect(statuses).toContain(200)

    await down?.start() // its cluster file kept: back with its slots, its keys gone
    await reconnected(
      Array.from({ length: 12 }, (_, i) => ({
        sendCommand: (_args: ReadonlyArray<string>, options?: { abortSignal?: AbortSignal }) =>
          client.sendCommand(['GET', `${prefix}session:s-${i}:revoked`], options),
      })),
    )
    for (let i = 0; i < 12; i++)
      expect(await store.isRevoked(session(`s-${i}`, { sub: `v-${i}` }))).toBe(false)
    // one line when the first node was lost, one when it came back: not one per node or retry
    expect(logged).toEqual([
      expect.stringMatching(/^redis: connection lost to 127\.0\.0\.1:\d+ \(/),
      'redis: connection back',
    ])
  })

  it('connectRedisCluster rejects promptly with StoreUnavailableError when no node listens', async () => {
    const started = performance.now()
    const nobody = `redis://:secret-password@127.0.0.1:${await freePort()}`
    const refused = await connectRedisCluster([nobody], { log: () => {} }).catch(
      (err: unknown) => err,
    )
    expect(refused).toBeInstanceOf(StoreUnavailableError)
    expect((refused as Error).message).not.toContain('secret-password')
    expect(performance.now() - started).toBeLessThan(3000)
  })
})
