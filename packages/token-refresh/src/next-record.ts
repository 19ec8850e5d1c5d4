import { assertTokenRecord } from './token-record.ts'
import type { TokenRecord, TokenRefreshOptions } from './types.ts'

/** The `getToken` functions already warned about: one warning each, not one per refresh. */
const warned = new WeakSet<object>()

/**
 * Calls `getToken` for the record after `current` (the first one without), telling it the stream
 * `current` names, and checks the answer. A `getToken` declared without a parameter cannot pass
 * the stream on: under stream limits each of its refreshes starts a new stream, which the
 * backend counts (and may refuse) as another playback: one console warning says so.
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
  const record = assertTokenRecord(await getToken(stream ? { stream } : {}))
  if (record.stream && getToken.length === 0 && !warned.has(getToken)) {
    warned.add(getToken)
    console.warn(
      '[token-refresh] the token backend limits streams, but getToken ignores its context: each refresh starts a new stream. Use getToken: (context) => fetchToken(url, context)',
    )
  }
  return record
}
