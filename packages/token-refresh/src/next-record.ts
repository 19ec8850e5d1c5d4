import { assertTokenRecord } from './token-record.ts'
import type { TokenRecord, TokenRefreshOptions } from './types.ts'

/**
 * Calls `getToken` for the record after `current` (the first one without), telling it the stream
 * `current` names, and checks the answer. A `getToken` declared without a parameter cannot pass
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
  const record = assertTokenRecord(await getToken(stream ? { stream } : {}))
  if (record.stream && getToken.length === 0)
    void import('./stream-limit.ts').then(({ warnContextDropped }) => warnContextDropped(getToken))
  return record
}
