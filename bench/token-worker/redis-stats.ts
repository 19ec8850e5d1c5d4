import type { RedisClient } from '@proj/token-backend/redis'

/**
 * INFO commandstats as calls per command; the INFO calls of the bench itself are left out.
 *
 * @example
 * ```ts
 * const before = await commandCalls(client)
 * ```
 */
export async function commandCalls(client: RedisClient): Promise<Map<string, number>> {
  const text = String(await client.sendCommand(['INFO', 'commandstats']))
  const calls = new Map<string, number>()
  for (const [, name = '', count = '0'] of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    if (name !== 'info') calls.set(name, Number(count))
  return calls
}

/**
 * The calls per command between two readings, commands not called left out.
 *
 * @example
 * ```ts
 * const ran = difference(await commandCalls(client), before)
 * ```
 */
export function difference(
  after: Map<string, number>,
  before: Map<string, number>,
): Map<string, number> {
  return new Map(
    [...after]
      .map(([name, calls]) => [name, calls - (before.get(name) ?? 0)] as const)
      .filter(([, calls]) => calls > 0),
  )
}
