import type { RateLimitConfig, ViewerLimit } from '../rate-limit.ts'
import {
  DEFAULT_TIMEOUT_MS,
  type RedisCommandClient,
  redisScript,
  runScript,
} from './redis-command.ts'
import type { RedisStoreOptions } from './redis-session-store.ts'

// KEYS[1] the viewer's counter; ARGV: requests, period (s). The window starts with its first
// request and the key dies with it (EXPIRE NX: set once, never pushed back by later requests).
// Returns {1} when allowed, else {0, ms until the window ends}.
const COUNT = redisScript(`
local count = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2], 'NX')
if count <= tonumber(ARGV[1]) then return {1} end
return {0, redis.call('PTTL', KEYS[1])}
`)

/**
 * The viewer rate limit in Redis: a fixed-window counter per viewer, counted by one Lua script,
 * so `requests` are admitted across every instance together and the next one is refused, with
 * `Retry-After` the rest of the window. Every call waits at most `timeoutMs`, then throws
 * `StoreUnavailableError`. Keys: `<prefix>limit:<viewer key>`.
 *
 * @example
 * ```ts
 * const limit = redisLimit(client, { requests: 20, periodSeconds: 60 })
 * await limit.check('net:203.0.113.7') // { allowed: true }
 * ```
 */
export function redisLimit(
  client: RedisCommandClient,
  {
    requests,
    periodSeconds,
    prefix = 'token-backend:',
    timeoutMs = DEFAULT_TIMEOUT_MS,
  }: Pick<RateLimitConfig, 'requests'> & { periodSeconds: number } & RedisStoreOptions,
): ViewerLimit {
  const args = [String(requests), String(periodSeconds)]
  return {
    async check(key) {
      const reply = (await runScript(
        client,
        COUNT,
        [`${prefix}limit:${key}`],
        args,
        timeoutMs,
      )) as [number, number?]
      if (reply[0] === 1) return { allowed: true }
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((reply[1] ?? 0) / 1000)) }
    },
  }
}
