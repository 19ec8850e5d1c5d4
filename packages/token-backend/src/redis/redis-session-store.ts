import type { SessionStore } from '../session/session-store.ts'
import {
  DEFAULT_TIMEOUT_MS,
  type RedisCommandClient,
  redisCommand,
  redisScript,
  runScript,
} from './redis-command.ts'
import { fencedScript, runFenced } from './redis-fence.ts'

/** Where the Redis store keeps its keys and how long it waits for Redis. */
export interface RedisStoreOptions {
  /** Put before every key, so several apps can share one Redis. Default `token-backend:`. */
  prefix?: string
  /** Longest wait for one Redis call, in ms; then `StoreUnavailableError`. Default 1000. */
  timeoutMs?: number
}

// Pushes the key's expiry to `at` (Unix s) unless it already lives longer (EXPIREAT GT alone would not
// set an expiry on a key that has none). An expiry in the past deletes the key, as it should.
const EXTEND = `
local function extend(key, at)
  if redis.call('EXPIRETIME', key) < at then redis.call('EXPIREAT', key, at) end
end
`

// KEYS[1] the session's network set; ARGV: network, max, the session's expiry (Unix s).
// One script: two instances admitting different networks at once cannot both see room for one.
const ADMIT = redisScript(`${EXTEND}
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
extend(KEYS[1], tonumber(ARGV[3]))
return 1
`)

// KEYS[1] the revocation key; ARGV: the value to keep (the larger wins), until (Unix s), the
// fence's deadline. Fenced, as every operator's write: one answered 503 never happens later.
const REVOKE = fencedScript(`${EXTEND}
local at = tonumber(ARGV[1])
local old = tonumber(redis.call('GET', KEYS[1]) or '0')
if old == nil or old < at then redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL') end
extend(KEYS[1], tonumber(ARGV[2]))
`)

// KEYS[1] the drained set; ARGV: SADD or SREM, the CDN id, the fence's deadline.
const DRAIN = fencedScript(`redis.call(ARGV[1], KEYS[1], ARGV[2])`)

/**
 * The session store in Redis, shared by every instance of the backend: a session's networks are
 * a set admitted by one Lua script (never read-then-write across round trips), revocations are
 * keys, and every key expires with the session or viewer revocation it belongs to (`EXPIREAT`).
 * Every call waits at most `timeoutMs`, then throws `StoreUnavailableError`.
 *
 * Revocations and drains are fenced: when one throws `StoreUnavailableError` (the operator's
 * 503), it was not written and will not be later, whatever happens to the command in flight.
 *
 * Keys: `<prefix>session:<sid>:networks` (set), `<prefix>session:<sid>:revoked`,
 * `<prefix>viewer:<sub>:revoked-at` (Unix s), `<prefix>cdns:drained` (set of CDN ids, no expiry).
 * Every operation touches one key (`isRevoked` reads its two with one `GET` each), so the store
 * runs on a Redis Cluster as on one node, its keys spread over every shard
 * ({@link connectRedisCluster}). Keep `{…}` out of the prefix: a hash tag there would put every
 * key on one shard.
 *
 * @example
 * ```ts
 * import { cachedSessionStore, createTokenApp } from '@proj/token-backend'
 * import { connectRedis, redisSessionStore } from '@proj/token-backend/redis'
 *
 * const client = await connectRedis('redis://127.0.0.1:6379')
 * const app = createTokenApp({ sessions: cachedSessionStore(redisSessionStore(client)) })
 * ```
 */
export function redisSessionStore(
  client: RedisCommandClient,
  { prefix = 'token-backend:', timeoutMs = DEFAULT_TIMEOUT_MS }: RedisStoreOptions = {},
): SessionStore {
  const sessionKey = (sid: string, what: 'networks' | 'revoked') =>
    `${prefix}session:${sid}:${what}`
  const viewerKey = (sub: string) => `${prefix}viewer:${sub}:revoked-at`
  const drainedKey = `${prefix}cdns:drained`
  return {
    async admitNetwork(session, network, max) {
      const keys = [sessionKey(session.sid, 'networks')]
      const args = [network, String(max), String(session.exp)]
      return (await runScript(client, ADMIT, keys, args, timeoutMs)) === 1
    },
    async isRevoked({ sid, sub, iat }) {
      // one GET per key, sent together (one round trip on one node): a session's and its
      // viewer's keys lie in different slots of a cluster, where one MGET of both is refused
      // (CROSSSLOT). Not hash-tagged into one slot: revokeSession knows no viewer to tag with,
      // and the key names stay those earlier releases wrote (an upgrade loses no revocation).
      const get = (key: string) => redisCommand(client, ['GET', key], timeoutMs)
      const [session, viewer] = (await Promise.all([
        get(sessionKey(sid, 'revoked')),
        sub === undefined ? null : get(viewerKey(sub)),
      ])) as Array<string | null>
      if (session !== null && session !== undefined) return true
      return viewer !== null && viewer !== undefined && iat <= Number(viewer)
    },
    async revokeSession(sid, untilSeconds) {
      const keys = [sessionKey(sid, 'revoked')]
      await runFenced(client, REVOKE, keys, ['1', String(untilSeconds)], timeoutMs)
    },
    async revokeViewer(sub, atSeconds, untilSeconds) {
      const args = [String(atSeconds), String(untilSeconds)]
      await runFenced(client, REVOKE, [viewerKey(sub)], args, timeoutMs)
    },
    async drainedCdns() {
      return (await redisCommand(client, ['SMEMBERS', drainedKey], timeoutMs)) as string[]
    },
    async drainCdn(cdn, drained) {
      const args = [drained ? 'SADD' : 'SREM', cdn]
      await runFenced(client, DRAIN, [drainedKey], args, timeoutMs)
    },
  }
}
