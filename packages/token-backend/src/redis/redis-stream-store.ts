import {
  AbortError,
  ClientClosedError,
  ClientOfflineError,
  DisconnectsClientError,
  ErrorReply,
} from 'redis'
import { StoreUnavailableError } from '../store-unavailable.ts'
import type { StreamLease, StreamVerdict } from '../streams/stream-ledger.ts'
import type { StreamStore } from '../streams/stream-store.ts'
import {
  DEFAULT_TIMEOUT_MS,
  lateReply,
  type RedisCommandClient,
  redisCommand,
  runScript,
} from './redis-command.ts'
import type { RedisStoreOptions } from './redis-session-store.ts'
import { ADMIT, END, LIST, RETRACT } from './stream-scripts.ts'

/** Lua's cjson writes an empty array as `{}`. */
const leases = (value: unknown): StreamLease[] => (Array.isArray(value) ? value : [])

/** Most starts and renewals sent in one script call: a longer script would hold Redis longer. */
const MOST_PER_CALL = 32

/** A request of a call that failed alone (its viewer's record unreadable): a bug, thrown as one. */
interface ScriptError {
  kind: 'error'
  error: string
}

/** {@link redisStreamStore}'s options: the stores' own, and whether requests share calls. */
export interface RedisStreamStoreOptions extends RedisStoreOptions {
  /**
   * Default `true`: the requests of one event-loop turn share script calls, on one Redis node
   * (a cluster's client never does). `false` behind a proxy that shards keys over several Redis
   * servers by a command's first key (twemproxy, Envoy's Redis proxy): it would run a shared call
   * on the first key's server only.
   */
  batch?: boolean
}

interface Asked {
  key: string
  request: string
  /** A new stream under an id of this process's own (the client named none): see `retract`. */
  unnamed?: { id: string; nowMs: number; untilMs: number; askedAt: number }
  resolve(verdict: StreamVerdict): void
  reject(error: unknown): void
}

/** The client was closed or destroyed (the process is stopping): nothing more can be sent. */
const closed = (error: unknown): boolean =>
  error instanceof ClientClosedError || error instanceof DisconnectsClientError

/**
 * Whether a command that failed, or came to nothing after its timeout (`lateReply`), may have
 * run: not when the client dropped it unsent (offline with no queue to hold it, closed, or
 * aborted in its queue at the timeout), nor when Redis refused it (a transient reply: a script
 * refused, or stopped at its first write, wrote nothing). A lost connection may have carried it.
 */
const mayHaveRun = (error: unknown): boolean => {
  const cause = error instanceof StoreUnavailableError ? error.cause : error
  return !(
    cause instanceof ClientOfflineError ||
    cause instanceof AbortError ||
    cause instanceof ErrorReply ||
    closed(cause)
  )
}

/** Most retractions waiting for Redis at once; beyond, a phantom lease lapses by itself. */
const MOST_RETRACTIONS = 10_000
/** The longest wait between two tries of a retraction that was not sent or not run, in ms. */
const RETRACT_BACKOFF_MS = 5000

/**
 * The stream ledger in Redis, shared by every instance of the backend: each viewer's streams in
 * one key, `<prefix>{streams:<sub>}` (its own hash tag: Redis Cluster keeps it in one slot),
 * changed only by Lua scripts that apply the ledger's rules in one step, so twenty starts at once
 * on three instances admit exactly the limit. Every call waits at most `timeoutMs`, then throws
 * `StoreUnavailableError`; a new stream answered so (its id not the client's) holds no slot
 * afterwards, even when a stalled Redis runs the start late: its lease is retracted, once, when
 * Redis answers again.
 *
 * Every refresh of a playing stream is one start or renewal: of the ones asked in one event-loop
 * turn (the requests that arrived together), the first is sent at once and the others together,
 * up to 32 in a script call that applies them one after the other, each as atomic as alone. A call
 * costs this process about what one command does, whatever it carries (the benchmark
 * `stream-limits`). A Redis Cluster refuses a script over several hash slots: with
 * `connectRedisCluster`'s client (or any client with a `cluster` property, or once Redis answers
 * `CROSSSLOT`) each request is a call of its own; behind a sharding proxy, pass `batch: false`.
 *
 * @example
 * ```ts
 * import { connectRedis, redisStreamStore } from '@proj/token-backend/redis'
 *
 * const client = await connectRedis('redis://127.0.0.1:6379')
 * const app = createTokenApp({ config, streams: redisStreamStore(client) })
 * ```
 */
export function redisStreamStore(
  client: RedisCommandClient,
  {
    prefix = 'token-backend:',
    timeoutMs = DEFAULT_TIMEOUT_MS,
    batch = true,
  }: RedisStreamStoreOptions = {},
): StreamStore {
  const recordKey = (sub: string) => `${prefix}{streams:${sub}}`
  // a cluster refuses a script over keys of several slots: one call per request there
  let batching = batch && !('cluster' in client)
  // the requests of this event-loop turn after its first, sent together when the turn's I/O is
  // done; the first goes at once, so that the client's write of this turn takes them along
  // (node-redis writes once per turn, in a setImmediate queued after ours): no turn's delay
  let later: Asked[] | undefined
  const retracting = new Set<string>()

  // A start answered 503 may still run (a stalled server reads its socket when it wakes): the
  // viewer would then hold a slot no one plays, for the lease's whole life (a token's lifetime),
  // and be refused for it. A start whose id the client named is left alone: its retry names it
  // again and renews that lease. Any other id was never sent to anyone, so its lease is retracted
  // (RETRACT), once per start:
  // - timed out: the retraction is sent at once, so that it travels behind its start on the same
  //   connection and Redis runs the two in that order, before anything sent later (the client's
  //   retries of the start: run ahead of the retraction under `evict-oldest`, each retry would
  //   evict one of the viewer's playing streams to make room for a phantom). It is sent once: if
  //   it times out too, its own late reply is followed (a stall of minutes piles up nothing for
  //   Redis to run when it wakes). A start dropped unsent at the timeout never runs: its
  //   retraction only remembers an id no one has;
  // - its connection died before a reply (it may have run, or may still: bytes of the dead
  //   connection can sit unread in a stalled server's socket buffer, and node-redis sends on a
  //   new connection, in no order with the old one). The client has no offline queue
  //   (`connectRedis`): until it is ready again every try fails unsent (ClientOfflineError) and
  //   is tried again later. RETRACT remembers the id, so a start that lands after it admits
  //   nothing: the order of the two cannot matter.
  const retract = (key: string, { id, nowMs, untilMs, askedAt }: NonNullable<Asked['unnamed']>) => {
    if (retracting.has(id) || retracting.size >= MOST_RETRACTIONS) return
    retracting.add(id)
    let backoffMs = 100
    const done = () => void retracting.delete(id)
    const later = (error: unknown) => {
      if (closed(error instanceof StoreUnavailableError ? error.cause : error)) return done()
      setTimeout(attempt, backoffMs).unref?.()
      backoffMs = Math.min(backoffMs * 2, RETRACT_BACKOFF_MS)
    }
    const attempt = () => {
      const atMs = nowMs + (performance.now() - askedAt)
      if (atMs >= untilMs) return done() // the lease has lapsed by itself
      // EVAL, not EVALSHA: a server that lost its script cache (a restart, a failover, a shard
      // that never ran it) would answer NOSCRIPT after the stall, and the EVAL sent then would
      // run behind the client's retries, out of the order this relies on
      const args = ['EVAL', RETRACT.source, '1', key, String(atMs), id, String(untilMs)]
      redisCommand(client, args, timeoutMs).then(done, (error: unknown) => {
        // anything but unavailable (an unreadable record) is the next start's to report
        if (!(error instanceof StoreUnavailableError)) return done()
        const late = lateReply(error)
        if (late === undefined) return later(error)
        late.then(done, later)
      })
    }
    attempt()
  }

  const send = async (calls: Asked[]): Promise<void> => {
    let reply: unknown
    try {
      reply = await runScript(
        client,
        ADMIT,
        calls.map((call) => call.key),
        calls.map((call) => call.request),
        timeoutMs,
      )
    } catch (error) {
      // a cluster's client that does not say so (no `cluster`): one call per request from now on
      if (
        calls.length > 1 &&
        error instanceof ErrorReply &&
        error.message.startsWith('CROSSSLOT')
      ) {
        batching = false
        for (const call of calls) void send([call])
      } else {
        if (error instanceof StoreUnavailableError && mayHaveRun(error))
          for (const call of calls) if (call.unnamed) retract(call.key, call.unnamed)
        for (const call of calls) call.reject(error)
      }
      return
    }
    const verdicts = Array.isArray(reply) ? reply : []
    for (const [i, call] of calls.entries()) {
      // a reply that is not the script's (a client of your own) fails its requests, not the process
      try {
        const verdict = JSON.parse(String(verdicts[i])) as StreamVerdict | ScriptError
        if (verdict.kind === 'error') throw new ErrorReply(`ERR ${verdict.error}`)
        if (verdict.kind === 'refused') verdict.active = leases(verdict.active)
        call.resolve(verdict)
      } catch (error) {
        call.reject(error)
      }
    }
  }
  const flush = () => {
    const calls = later ?? []
    later = undefined
    const size = batching ? MOST_PER_CALL : 1
    for (let i = 0; i < calls.length; i += size) void send(calls.slice(i, i + size))
  }

  return {
    admit(sub, request) {
      return new Promise<StreamVerdict>((resolve, reject) => {
        const call: Asked = {
          key: recordKey(sub),
          request: JSON.stringify(request),
          resolve,
          reject,
        }
        if (request.id === undefined) {
          const { newId: id, nowMs, untilMs } = request
          call.unnamed = { id, nowMs, untilMs, askedAt: performance.now() }
        }
        if (!batching) return void send([call])
        if (later !== undefined) return void later.push(call)
        later = []
        setImmediate(flush)
        void send([call])
      })
    },
    async list(sub, nowMs) {
      const reply = await runScript(client, LIST, [recordKey(sub)], [String(nowMs)], timeoutMs)
      return leases(JSON.parse(String(reply)))
    },
    async end(sub, id, nowMs) {
      const args = [String(nowMs), id ?? '']
      return Number(await runScript(client, END, [recordKey(sub)], args, timeoutMs))
    },
  }
}
