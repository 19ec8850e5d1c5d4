import { ClientClosedError, ClientOfflineError, ErrorReply } from 'redis'
import { StoreUnavailableError } from '../store-unavailable.ts'
import {
  MOST_EVICTIONS_REMEMBERED,
  MOST_LOGGED_OVER_LIMIT,
  type StreamLease,
  type StreamVerdict,
} from '../streams/stream-ledger.ts'
import type { StreamStore } from '../streams/stream-store.ts'
import {
  DEFAULT_TIMEOUT_MS,
  type RedisCommandClient,
  redisScript,
  runScript,
} from './redis-command.ts'
import type { RedisStoreOptions } from './redis-session-store.ts'

// The rules of streams/stream-ledger.ts in Lua, over one key per viewer holding their record as
// JSON ({streams, ended}), so that each operation is one script on one key: atomic, and on Redis
// Cluster in one slot (the key is `{streams:<sub>}` under the prefix). The key lives until the
// last thing in it is needed (PXAT). `until` is a Lua keyword: those fields are read by index.
const LEDGER = `
local function prune(state, now)
  local streams, ended = {}, {}
  for _, s in ipairs(state.streams or {}) do
    if s.expiresAt > now then streams[#streams + 1] = s end
  end
  for _, e in ipairs(state.ended or {}) do
    if e['until'] > now then ended[#ended + 1] = e end
  end
  return streams, ended
end
local function load(key, now)
  local raw = redis.call('GET', key)
  return prune(raw and cjson.decode(raw) or {}, now)
end
-- the oldest evictions beyond the most remembered are forgotten (the operator's ends are kept)
local function remembered(ended)
  local over = -${MOST_EVICTIONS_REMEMBERED}
  for _, e in ipairs(ended) do
    if e.reason == 'evicted' then over = over + 1 end
  end
  if over <= 0 then return ended end
  local kept = {}
  for _, e in ipairs(ended) do
    if e.reason == 'evicted' and over > 0 then over = over - 1 else kept[#kept + 1] = e end
  end
  return kept
end
local function save(key, streams, ended, now)
  local keep = 0
  for _, s in ipairs(streams) do keep = math.max(keep, s.keepUntil) end
  for _, e in ipairs(ended) do keep = math.max(keep, e['until']) end
  if keep <= now then
    redis.call('DEL', key)
  else
    redis.call('SET', key, cjson.encode({streams = streams, ended = ended}), 'PXAT', keep)
  end
end
`

// KEYS[i] a viewer's record, ARGV[i] a StreamRequest of theirs as JSON: the starts and renewals of
// one event-loop turn in one call (a viewer named twice: in the order asked). Returns each
// verdict as JSON, in order ({kind = 'error'} for a request whose record could not be read).
const ADMIT = redisScript(`${LEDGER}
local function admit(key, r, streams, ended)
local now = r.nowMs
if r.id then
  for _, e in ipairs(ended) do
    if e.id == r.id then return cjson.encode({kind = 'ended', reason = e.reason}) end
  end
  for _, s in ipairs(streams) do
    if s.id == r.id then
      if r.network then
        local networks, known = s.networks or {}, false
        for _, n in ipairs(networks) do
          if n == r.network then known = true end
        end
        if not known then
          if r.maxNetworks and #networks >= r.maxNetworks then
            return cjson.encode({kind = 'ended', reason = 'networks'})
          end
          networks[#networks + 1] = r.network
          s.networks = networks
        end
      end
      s.lastSeenAt = math.max(s.lastSeenAt, now)
      s.expiresAt = math.max(s.expiresAt, r.untilMs)
      s.keepUntil = math.max(s.keepUntil, r.keepUntilMs)
      save(key, streams, ended, now)
      return cjson.encode({kind = 'renewed', lease = s})
    end
  end
end
local lease = {id = r.newId, lane = r.lane, startedAt = now, lastSeenAt = now,
  expiresAt = r.untilMs, keepUntil = math.max(r.untilMs, r.keepUntilMs)}
if r.network then lease.networks = {r.network} end
local others = {}
for _, s in ipairs(streams) do
  if s.id ~= lease.id then others[#others + 1] = s end
end
local full = #others >= r.limit
if full and r.mode == 'enforce' and r.policy == 'reject-newest' then
  return cjson.encode({kind = 'refused', active = others})
end
local evict = full and r.mode == 'enforce'
local count = evict and (#others - r.limit + 1) or 0
-- log mode evicts nothing: past the limit and its margin, the oldest are forgotten
local forgotten = evict and 0 or math.max(0, #others - r.limit - ${MOST_LOGGED_OVER_LIMIT} + 1)
local kept, evicted = {}, nil
for i, s in ipairs(others) do
  if i <= count then
    ended[#ended + 1] = {id = s.id, reason = 'evicted', ['until'] = s.keepUntil}
    evicted = s
  elseif i > forgotten then
    kept[#kept + 1] = s
  end
end
kept[#kept + 1] = lease
if count > 0 then ended = remembered(ended) end
save(key, kept, ended, now)
return cjson.encode({kind = 'admitted', lease = lease, evicted = evicted,
  wouldRefuse = full and not evict, active = #kept})
end
local verdicts = {}
for i, key in ipairs(KEYS) do
  local r = cjson.decode(ARGV[i])
  local raw = redis.call('GET', key)
  -- a record this script cannot read fails its own request, not the others of the call; a
  -- Redis error (READONLY after a failover, OOM) is not caught: it fails the call, as alone
  local ok, streams, ended = pcall(function()
    return prune(raw and cjson.decode(raw) or {}, r.nowMs)
  end)
  if ok then
    verdicts[i] = admit(key, r, streams, ended)
  else
    verdicts[i] = cjson.encode({kind = 'error', error = 'unreadable stream record: ' .. tostring(streams)})
  end
end
return verdicts
`)

// KEYS[1] the viewer's record; ARGV[1] now (ms). The active streams as JSON.
const LIST = redisScript(`${LEDGER}
local streams = load(KEYS[1], tonumber(ARGV[1]))
return cjson.encode(streams)
`)

// KEYS[1] the viewer's record; ARGV: now (ms), the stream's id ('' for all). How many ended.
const END = redisScript(`${LEDGER}
local now = tonumber(ARGV[1])
local streams, ended = load(KEYS[1], now)
local kept, count = {}, 0
for _, s in ipairs(streams) do
  if ARGV[2] == '' or s.id == ARGV[2] then
    ended[#ended + 1] = {id = s.id, reason = 'ended', ['until'] = s.keepUntil}
    count = count + 1
  else
    kept[#kept + 1] = s
  end
end
if count > 0 then save(KEYS[1], kept, ended, now) end
return count
`)

// KEYS[1] the viewer's record; ARGV: now (ms), the id of a new stream whose start was answered
// 503. Drops that lease if the start reached Redis after all; records no end (nobody knows the
// id: its answer was never sent). How many leases it dropped.
const RETRACT = redisScript(`${LEDGER}
local now = tonumber(ARGV[1])
local streams, ended = load(KEYS[1], now)
local kept = {}
for _, s in ipairs(streams) do
  if s.id ~= ARGV[2] then kept[#kept + 1] = s end
end
if #kept < #streams then save(KEYS[1], kept, ended, now) end
return #streams - #kept
`)

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

/**
 * Whether a command that failed may still run: not when the client refused it without sending
 * it (offline, with no queue to hold it, or closed).
 */
const maybeSent = (error: StoreUnavailableError): boolean =>
  !(error.cause instanceof ClientOfflineError || error.cause instanceof ClientClosedError)

/** Most retractions waiting for Redis at once; beyond, a phantom lease lapses by itself. */
const MOST_RETRACTIONS = 10_000
/** The longest wait between two tries of a retraction, in ms. */
const RETRACT_BACKOFF_MS = 5000

/**
 * The stream ledger in Redis, shared by every instance of the backend: each viewer's streams in
 * one key, `<prefix>{streams:<sub>}` (its own hash tag: Redis Cluster keeps it in one slot),
 * changed only by Lua scripts that apply the ledger's rules in one step, so twenty starts at once
 * on three instances admit exactly the limit. Every call waits at most `timeoutMs`, then throws
 * `StoreUnavailableError`; a new stream answered so (its id not the client's) holds no slot
 * afterwards, even when a stalled Redis runs the start late: its lease is dropped once Redis
 * answers again.
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
  let retracting = 0

  // A start answered 503 may still reach Redis (a stalled server reads its socket when it wakes;
  // a socket's last bytes): the viewer would then hold a slot no one plays, for the lease's
  // whole life (a token's lifetime), and be refused for it. A start whose id the client named is
  // left alone: its retry names it again and renews that lease. Any other id was never sent to
  // anyone, so its lease, if written, is dropped: on one connection after the start (Redis runs
  // a connection's commands in order), retried until Redis answers or the lease has lapsed.
  const retract = (key: string, { id, nowMs, untilMs, askedAt }: NonNullable<Asked['unnamed']>) => {
    if (retracting >= MOST_RETRACTIONS) return
    retracting += 1
    let backoffMs = 100
    const attempt = async (): Promise<void> => {
      const atMs = nowMs + (performance.now() - askedAt)
      try {
        if (atMs < untilMs) await runScript(client, RETRACT, [key], [String(atMs), id], timeoutMs)
      } catch (error) {
        // retried while Redis is away; not once the client is closed (the process is stopping)
        if (error instanceof StoreUnavailableError && !(error.cause instanceof ClientClosedError)) {
          setTimeout(attempt, backoffMs).unref?.()
          backoffMs = Math.min(backoffMs * 2, RETRACT_BACKOFF_MS)
          return
        } // anything else (an unreadable record) is the next start's to report
      }
      retracting -= 1
    }
    void attempt()
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
      } else
        for (const call of calls) {
          if (error instanceof StoreUnavailableError && call.unnamed && maybeSent(error))
            retract(call.key, call.unnamed)
          call.reject(error)
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
