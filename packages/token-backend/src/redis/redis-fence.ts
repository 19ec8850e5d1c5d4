import { StoreUnavailableError } from '../store-unavailable.ts'
import {
  type RedisCommandClient,
  type RedisScript,
  redisScript,
  runScript,
} from './redis-command.ts'

// The server's clock in ms. A script (not TIME) so that it names the key: a cluster client sends
// it to the node that will run the write, whose clock the write is then checked against.
const SERVER_NOW = redisScript(`
local t = redis.call('TIME')
return t[1] * 1000 + math.floor(t[2] / 1000)
`)

/**
 * A Lua script that writes only while its last argument, a deadline on the server's clock (ms),
 * has not passed; it returns `1` when it wrote, `0` when it came too late. `body` is run
 * otherwise unchanged and must not return (the fence returns `1` after it).
 *
 * @example
 * ```ts
 * const SET = fencedScript("redis.call('SET', KEYS[1], ARGV[1])")
 * ```
 */
export function fencedScript(body: string): RedisScript {
  return redisScript(`
local t = redis.call('TIME')
if t[1] * 1000 + math.floor(t[2] / 1000) > tonumber(ARGV[#ARGV]) then return 0 end
${body}
return 1
`)
}

/**
 * Runs a {@link fencedScript} so that a `StoreUnavailableError` is true: the write has not
 * happened and never will. A command that times out may still sit in a socket or a client's
 * offline queue and reach Redis later (a stalled server, a network that comes back); that late
 * write must not revoke what the operator was told was not revoked. So it first reads the
 * server's clock (through the key's node) and gives the write a deadline half-way through the
 * time left: written in time, its reply has the other half to arrive; arriving later, it writes
 * nothing. Both clocks are the server's, so no clock of this machine needs to agree with it.
 * The two round trips share `timeoutMs`.
 *
 * @example
 * ```ts
 * await runFenced(client, SET, ['k'], ['v'], 1000)
 * ```
 */
export async function runFenced(
  client: RedisCommandClient,
  script: RedisScript,
  keys: ReadonlyArray<string>,
  args: ReadonlyArray<string>,
  timeoutMs: number,
): Promise<void> {
  const started = performance.now()
  const now = Number(await runScript(client, SERVER_NOW, keys.slice(0, 1), [], timeoutMs))
  const left = Math.floor(timeoutMs - (performance.now() - started))
  if (left < 2) throw new StoreUnavailableError(`redis did not answer within ${timeoutMs} ms`)
  const deadline = String(now + Math.floor(left / 2))
  const wrote = await runScript(client, script, keys, [...args, deadline], left)
  if (wrote !== 1)
    throw new StoreUnavailableError('redis answered too late: nothing was written, retry')
}
