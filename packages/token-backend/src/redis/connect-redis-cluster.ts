import { createCluster, type RedisClusterType } from 'redis'
import {
  type ConnectRedisOptions,
  connectWithin,
  outageReport,
  storeClientOptions,
  warnIfEvicting,
} from './connect-redis.ts'
import { DEFAULT_TIMEOUT_MS, type RedisCommandClient } from './redis-command.ts'

/** A connected Redis Cluster as the stores use it, from {@link connectRedisCluster}. */
export interface RedisClusterClient extends RedisCommandClient {
  /** node-redis' cluster client underneath, for anything else. */
  readonly cluster: RedisClusterType
  /** Closes every node's connection after the commands under way. */
  close(): Promise<void>
  /** Closes every node's connection now. */
  destroy(): void
}

// Read-only commands of the stores: a cluster client may send them to a replica when told to.
const READS = new Set(['GET', 'SMEMBERS', 'SISMEMBER', 'TTL', 'PTTL', 'EXPIRETIME', 'PING'])

/** The key a command is routed by: the first key of a script, else its first argument. */
function firstKey(args: ReadonlyArray<string>): string | undefined {
  const name = args[0]?.toUpperCase()
  if (name === 'EVALSHA' || name === 'EVAL') return Number(args[2]) > 0 ? args[3] : undefined
  return args[1]
}

/**
 * A node-redis cluster client (`createCluster`) for the Redis stores, as {@link connectRedis} is
 * for one node: it discovers the shards from `urls` (seed nodes, one is enough; several survive
 * one being down at start), sends each command to the node of its key's slot (following MOVED and
 * ASK), fails commands at once while their node is disconnected, reconnects by itself, and logs
 * one line when a node is lost and one when every lost node is back. The first URL's user,
 * password and `rediss:` (TLS) apply to every node; a cluster has only database 0. Rejects with
 * `StoreUnavailableError` when the cluster cannot be reached within `timeoutMs`.
 *
 * @example
 * ```ts
 * import { createTokenApp, cachedSessionStore } from '@proj/token-backend'
 *
 * const client = await connectRedisCluster(['redis://10.0.0.1:6379', 'redis://10.0.0.2:6379'])
 * const app = createTokenApp({ sessions: cachedSessionStore(redisSessionStore(client)) })
 * ```
 */
export async function connectRedisCluster(
  urls: ReadonlyArray<string>,
  { timeoutMs = DEFAULT_TIMEOUT_MS, log = console.error }: ConnectRedisOptions = {},
): Promise<RedisClusterClient> {
  const [first] = urls
  if (first === undefined) throw new TypeError('connectRedisCluster needs at least one node URL')
  const { username, password, protocol, pathname } = new URL(first)
  if (!['', '/', '/0'].includes(pathname))
    throw new TypeError('a Redis Cluster has only database 0: drop the /<db> of the URL')
  const outage = outageReport(log)
  const node = storeClientOptions(outage, timeoutMs)
  const cluster = createCluster({
    rootNodes: urls.map((url) => ({ url })),
    defaults: {
      ...(username && { username: decodeURIComponent(username) }),
      ...(password && { password: decodeURIComponent(password) }),
      disableOfflineQueue: node.disableOfflineQueue,
      socket: { ...node.socket, ...(protocol === 'rediss:' && { tls: true as const }) },
    },
  })
  const where = ({ host, port }: { host?: string; port?: number }) => `${host}:${port}`
  cluster.on('error', () => {}) // discovery errors: the connect rejects or a node reports
  cluster.on('node-error', (err: Error, node: { host?: string; port?: number }) =>
    outage.lost(where(node), err),
  )
  cluster.on('node-ready', (node: { host?: string; port?: number }) => outage.back(where(node)))
  await connectWithin(cluster, timeoutMs)
  outage.connected()
  // each master evicts by its own policy: the one that does is named
  await Promise.all(
    cluster.masters.map(async (master) => {
      const node = await cluster.nodeClient(master).catch(() => undefined)
      if (node !== undefined) await warnIfEvicting(node, log, timeoutMs, where(master))
    }),
  )
  return {
    cluster,
    sendCommand: (args, options) =>
      cluster.sendCommand(
        firstKey(args),
        READS.has(args[0]?.toUpperCase() ?? ''),
        [...args],
        options,
      ),
    close: () => cluster.close(),
    destroy: () => cluster.destroy(),
  }
}
