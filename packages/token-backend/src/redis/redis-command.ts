import { createHash } from 'node:crypto'
import { ErrorReply } from 'redis'
import { StoreUnavailableError } from '../store-unavailable.ts'

/**
 * The one method the Redis stores use: a node-redis client (`createClient()`, `connectRedis`)
 * has it. A wrapper of another client can offer it too, throwing node-redis' `ErrorReply` for
 * error replies (anything else counts as Redis being unavailable).
 */
export interface RedisCommandClient {
  sendCommand(
    args: ReadonlyArray<string>,
    options?: { abortSignal?: AbortSignal },
  ): Promise<unknown>
}

/** How long one Redis call may take before it counts as unavailable, unless told otherwise. */
export const DEFAULT_TIMEOUT_MS = 1000

// Replies that mean "this server cannot answer now", not "the command is wrong". OOM: a Redis
// at `maxmemory` with `noeviction` refuses every write (a script's at its first write, so nothing
// of it was written): the store is unavailable until memory is freed, and the app must answer as
// it does to an outage (503, sessions trusted for a while, "not revoked, retry"), not as a bug.
const TRANSIENT_REPLY =
  /^(?:LOADING|BUSY|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|OOM)\b/

/** How often a process logs a transient reply, at most. */
const REPORT_EVERY_MS = 60_000
let reportedAt = Number.NEGATIVE_INFINITY

// A transient reply comes over a connection that stays up, so no `connection lost` line tells the
// operator why requests are answered 503 (a full Redis, a replica after a failover): one line a
// minute does, whatever the load. A reply names no host, key or password.
function reportTransient(reply: string): void {
  const nowMs = Date.now()
  if (nowMs - reportedAt < REPORT_EVERY_MS) return
  reportedAt = nowMs
  console.error(`redis: ${reply.split('\n')[0]} (answered 503; at most one such line a minute)`)
}

// The command behind each timeout error, still on its way: see lateReply.
const stillPending = new WeakMap<StoreUnavailableError, Promise<unknown>>()

/**
 * What becomes of the command whose timeout `error` reports (undefined for any other error): its
 * reply when Redis runs it after all (a stalled server reads its socket when it wakes), or
 * node-redis' rejection: `AbortError` when it was still in the client's queue at the timeout (it
 * was dropped unsent: it never runs), a connection error when it was written and the connection
 * died before its reply (it may have run), an `ErrorReply` when Redis refused it.
 *
 * @example
 * ```ts
 * const late = error instanceof StoreUnavailableError ? lateReply(error) : undefined
 * late?.then((reply) => console.log('it ran after all', reply), () => {})
 * ```
 */
export function lateReply(error: StoreUnavailableError): Promise<unknown> | undefined {
  return stillPending.get(error)
}

/**
 * Sends one command, bounded by `timeoutMs` whatever the client does meanwhile (an offline queue
 * or a reconnect loop would otherwise hold the request): a timeout, a connection error or a
 * transient reply becomes a {@link StoreUnavailableError}; any other error reply (a bug) is thrown
 * as it is. A transient reply is told to `report` (by default one line a minute: the request is
 * answered 503).
 *
 * @example
 * ```ts
 * await redisCommand(client, ['SET', 'k', 'v'], 1000)
 * ```
 */
export async function redisCommand(
  client: RedisCommandClient,
  args: ReadonlyArray<string>,
  timeoutMs: number,
  report: (reply: string) => void = reportTransient,
): Promise<unknown> {
  const abort = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  let sent: Promise<unknown> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new StoreUnavailableError(`redis did not answer within ${timeoutMs} ms`)
      if (sent !== undefined) stillPending.set(error, sent)
      // rejected first, so the race reports the timeout rather than the abort it causes
      reject(error)
      abort.abort()
    }, timeoutMs)
  })
  // the abort drops the command from the client's queue if it was not sent yet
  sent = client.sendCommand(args, { abortSignal: abort.signal })
  sent.catch(() => {}) // after a timeout its late rejection is nobody's business but lateReply's
  try {
    return await Promise.race([sent, timeout])
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw err
    if (err instanceof ErrorReply) {
      if (!TRANSIENT_REPLY.test(err.message)) throw err
      report(err.message)
    }
    throw new StoreUnavailableError(`redis unavailable: ${(err as Error).message}`, { cause: err })
  } finally {
    clearTimeout(timer)
  }
}

/** A Lua script and its SHA-1, for `EVALSHA`. */
export interface RedisScript {
  source: string
  sha: string
}

/**
 * Names a Lua script by its SHA-1, so calls send the hash rather than the source.
 *
 * @example
 * ```ts
 * const incr = redisScript("return redis.call('INCR', KEYS[1])")
 * ```
 */
export function redisScript(source: string): RedisScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') }
}

/**
 * Runs `script` atomically on the server: `EVALSHA`, then `EVAL` once if the server does not know
 * it yet (a restart empties its script cache). Errors as {@link redisCommand}.
 *
 * @example
 * ```ts
 * const count = await runScript(client, incr, ['counter'], [], 1000)
 * ```
 */
export async function runScript(
  client: RedisCommandClient,
  script: RedisScript,
  keys: ReadonlyArray<string>,
  args: ReadonlyArray<string>,
  timeoutMs: number,
): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...args]
  try {
    return await redisCommand(client, ['EVALSHA', script.sha, ...tail], timeoutMs)
  } catch (err) {
    if (!(err instanceof ErrorReply && err.message.startsWith('NOSCRIPT'))) throw err
    return redisCommand(client, ['EVAL', script.source, ...tail], timeoutMs)
  }
}
