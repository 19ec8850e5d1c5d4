import { assertTokenRecord } from './token-record.ts'
import type { TokenContext, TokenRecord, TokenRefreshOptions } from './types.ts'

/**
 * A new stream's id as the player proposes it: 16 random bytes in hex (`getRandomValues`, which,
 * unlike `randomUUID`, pages served over plain HTTP have too).
 *
 * @example
 * ```ts
 * proposeStreamId() // '9f86d081884c7d659a2feaa0c55ad015'
 * ```
 */
export function proposeStreamId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    (byte | 256).toString(16).slice(1),
  ).join('')
}

/**
 * Calls `getToken` for the record after `current` (the first one without), telling it the stream
 * `current` names, or for the first record a stream id it proposes, and checks the answer. A `getToken` declared without a parameter cannot pass
 * the stream on: under stream limits each of its refreshes starts a new stream, which the
 * backend counts (and may refuse) as another playback: one console warning says so (its module
 * loaded then).
 *
 * @example
 * ```ts
 * const record = await nextRecord(settings.getToken, refresher.record)
 * ```
 */
export async function nextRecord(
  getToken: TokenRefreshOptions['getToken'],
  current?: TokenRecord,
): Promise<TokenRecord> {
  const stream = current?.stream
  const context: TokenContext = current
    ? stream
      ? { stream }
      : {}
    : { stream: proposeStreamId(), proposed: true }
  const record = assertTokenRecord(await getToken(context))
  if (record.stream && getToken.length === 0)
    void import('./stream-limit.ts').then(({ warnContextDropped }) => warnContextDropped(getToken))
  return record
}
