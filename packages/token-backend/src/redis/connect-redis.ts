import { createClient, type RedisClientType } from 'redis'
import { StoreUnavailableError } from '../store-unavailable.ts'
import { DEFAULT_TIMEOUT_MS, type RedisCommandClient, redisCommand } from './redis-command.ts'

/** A connected node-redis client, as {@link connectRedis} returns it. */
export type RedisClient = RedisClientType

/** How {@link connectRedis} and `connectRedisCluster` connect and report. */
export interface ConnectRedisOptions {
  /** Longest wait to connect, the handshake included, in ms. Default 1000. */
  timeoutMs?: number
  /** Told once when the connection is lost and once when it is back. Default `console.error`. */
  log?: (message: string) => void
}

/**
 * A node-redis client for the Redis stores, connected to `url` (`redis://host:6379/0`), set up so
 * that no request waits on Redis longer than the stores' timeout: while disconnected, commands
 * fail at once (no offline queue holding them), and the client reconnects by itself with a capped
 * back-off, so the stores recover when Redis returns. Connection errors are logged once per outage
 * (node-redis would otherwise crash the process on an unhandled `error` event). Rejects with
 * `StoreUnavailableError` when Redis cannot be reached within `timeoutMs`: a backend configured
 * for Redis does not start without it. For a Redis Cluster, `connectRedisCluster`.
 *
 * @example
 * ```ts
 * const client = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
 * const store = redisSessionStore(client)
 * ```
 */
export async function connectRedis(
  url: string,
  { timeoutMs = DEFAULT_TIMEOUT_MS, log = console.error }: ConnectRedisOptions = {},
): Promise<RedisClient> {
  const outage = outageReport(log)
  const client = createClient({ url, ...storeClientOptions(outage, timeoutMs) })
  client.on('error', (err: Error) => outage.lost('', err))
  client.on('ready', () => outage.back(''))
  await connectWithin(client, timeoutMs)
  outage.connected()
  await warnIfEvicting(client, log, timeoutMs)
  return client
}

/**
 * Logs one line when the server may evict the stores' keys (`maxmemory-policy` other than
 * `noeviction`): every key of theirs has an expiry, so even a `volatile-*` policy picks them, and
 * an evicted revocation lets a revoked session play again, an evicted stream record forgets its
 * viewer's streams (the limit admits more), an evicted counter resets a rate limit. Nothing fails
 * meanwhile, so the operator hears it here, at start. A server that does not answer `INFO` (a
 * managed Redis that renames it) is not checked; one that answers it a transient reply (`LOADING`
 * its data set, `BUSY` with a script) is said so in one line of this start's own, not the stores'
 * "answered 503" line: nothing was answered, and that line, once a minute, would then be spent.
 * `where` names a node of a cluster.
 *
 * @example
 * ```ts
 * await warnIfEvicting(client, console.error, 1000)
 * ```
 */
export async function warnIfEvicting(
  client: RedisCommandClient,
  log: (message: string) => void,
  timeoutMs: number,
  where = '',
): Promise<void> {
  let info: unknown
  try {
    const unchecked = (reply: string) =>
      log(
        `redis: ${reply.split('\n')[0]}${where && ` on ${where}`} at connect; maxmemory-policy not checked`,
      )
    info = await redisCommand(client, ['INFO', 'memory'], timeoutMs, unchecked)
  } catch {
    return // not ours to fail the start for: the stores' own commands decide that
  }
  const policy = /^maxmemory_policy:(\S+)/m.exec(String(info))?.[1]
  if (policy === undefined || policy === 'noeviction') return
  log(
    `redis: maxmemory-policy is ${policy}${where && ` on ${where}`}: at maxmemory Redis evicts keys, and an evicted revocation lets a revoked session play again, an evicted stream record forgets its viewer's streams; set maxmemory-policy noeviction (a full Redis is then answered 503)`,
  )
}

/**
 * The options the stores' clients share, one node or each node of a cluster: no offline queue,
 * the connect timeout, reconnection for ever once connected.
 *
 * @example
 * ```ts
 * createClient({ url, ...storeClientOptions(outageReport(console.error), 1000) })
 * ```
 */
export function storeClientOptions(outage: OutageReport, timeoutMs: number) {
  return {
    disableOfflineQueue: true,
    socket: {
      connectTimeout: timeoutMs,
      // before the first connection, give up (connect() rejects); after it, retry for ever
      reconnectStrategy: (retries: number, cause: Error) =>
        outage.isConnected() ? Math.min(50 * 2 ** retries, 1000) : cause,
    },
  }
}

/** One line when the connection is lost, one when it is back: not one per retry or per node. */
export interface OutageReport {
  /** The first connection is made: losses count from now. */
  connected(): void
  isConnected(): boolean
  /** `where` (a node) lost its connection. */
  lost(where: string, err: Error): void
  /** `where` is ready again. */
  back(where: string): void
}

/**
 * The outage bookkeeping of {@link connectRedis} and `connectRedisCluster`: "connection lost"
 * when the first node goes, "connection back" when the last one lost is back.
 *
 * @example
 * ```ts
 * const outage = outageReport(console.error)
 * ```
 */
export function outageReport(log: (message: string) => void): OutageReport {
  let connected = false
  const down = new Set<string>()
  return {
    connected: () => {
      connected = true
    },
    isConnected: () => connected,
    lost(where, err) {
      if (!connected || down.has(where)) return
      down.add(where)
      if (down.size === 1)
        log(`redis: connection lost${where && ` to ${where}`} (${err.message}); retrying`)
    },
    back(where) {
      if (down.delete(where) && down.size === 0) log('redis: connection back')
    },
  }
}

/**
 * Connects `client` within `timeoutMs`, or destroys it and rejects with `StoreUnavailableError`.
 * (connectTimeout bounds the TCP connect only: a server that accepts and never answers the
 * handshake is bounded here.)
 *
 * @example
 * ```ts
 * await connectWithin(createClient({ url }), 1000)
 * ```
 */
export async function connectWithin(
  client: { connect(): Promise<unknown>; destroy(): void },
  timeoutMs: number,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const connecting = client.connect()
  connecting.catch(() => undefined)
  try {
    await Promise.race([
      connecting,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      }),
    ])
  } catch (err) {
    client.destroy()
    // the message names the socket's error (host and port), never the URL and its password
    throw new StoreUnavailableError(`cannot connect to redis: ${(err as Error).message}`, {
      cause: err,
    })
  } finally {
    clearTimeout(timer)
  }
}
