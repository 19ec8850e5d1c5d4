import { createClient, type RedisClientType } from 'redis'
import { StoreUnavailableError } from '../store-unavailable.ts'
import { DEFAULT_TIMEOUT_MS } from './redis-command.ts'

/** A connected node-redis client, as {@link connectRedis} returns it. */
export type RedisClient = RedisClientType

/** How {@link connectRedis} connects and reports. */
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
 * for Redis does not start without it.
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
  let down = false
  let connected = false
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: timeoutMs,
      // before the first connection, give up (connect() rejects); after it, retry for ever
      reconnectStrategy: (retries, cause) =>
        connected ? Math.min(50 * 2 ** retries, 1000) : cause,
    },
  })
  client.on('error', (err: Error) => {
    if (down || !connected) return
    down = true
    log(`redis: connection lost (${err.message}); retrying`)
  })
  client.on('ready', () => {
    if (down) log('redis: connection back')
    down = false
  })
  // connectTimeout bounds the TCP connect only: a server that accepts and never answers the
  // handshake is bounded here
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
  connected = true
  return client
}
