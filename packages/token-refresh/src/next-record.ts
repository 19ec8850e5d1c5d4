import { timerDelay } from './refresh-schedule.ts'
import { DEFAULT_TOKEN_TIMEOUT_MS, systemTimers } from './refresh-settings.ts'
import { assertTokenRecord } from './token-record.ts'
import type { TimerHandle, TokenContext, TokenRecord, TokenRefreshOptions } from './types.ts'

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
 * `current` names, or for the first record a stream id it proposes, and checks the answer. A
 * call gets `tokenTimeoutMs` to answer: then its `signal` aborts (`fetchToken` passes it to
 * `fetch`) and it fails with a `TimeoutError`, so a backend that accepts the connection and never
 * answers is retried like one that is down, instead of parking every later refresh behind it.
 * `ending` (a refresher's `destroy()`) aborts the call as well.
 * A `getToken` declared without a parameter cannot pass the stream on: under stream limits each
 * of its refreshes starts a new stream, which the backend counts (and may refuse) as another
 * playback: one console warning says so (its module loaded then).
 *
 * @throws DOMException `TimeoutError` when `getToken` does not settle within `tokenTimeoutMs`.
 * @throws TypeError when the answer is not a token record (`assertTokenRecord`).
 * @example
 * ```ts
 * // the first record of a playback, as TokenRefresher.create fetches it
 * const record = await nextRecord({ getToken: (context) => fetchToken(url, context) })
 * ```
 */
export async function nextRecord(
  {
    getToken,
    tokenTimeoutMs = DEFAULT_TOKEN_TIMEOUT_MS,
    timers = systemTimers,
  }: Pick<TokenRefreshOptions, 'getToken' | 'tokenTimeoutMs' | 'timers'>,
  current?: TokenRecord,
  ending?: AbortSignal,
): Promise<TokenRecord> {
  const stream = current?.stream
  const aborter = new AbortController()
  // the refresher ended: its call is cancelled with it (fetchToken's request too)
  const end = () => aborter.abort(ending?.reason)
  ending?.addEventListener('abort', end)
  const context: TokenContext = current
    ? stream
      ? { stream }
      : {}
    : { stream: proposeStreamId(), proposed: true }
  context.signal = aborter.signal
  let handle: TimerHandle | undefined
  const late = new Promise<never>((_, reject) => {
    handle = timers.set(() => {
      aborter.abort(new DOMException(`no token in ${tokenTimeoutMs} ms`, 'TimeoutError'))
      reject(aborter.signal.reason)
    }, timerDelay(tokenTimeoutMs))
  })
  const record = assertTokenRecord(
    // a getToken that throws before it returns a promise is a rejection too: the timer cleared
    await Promise.race([new Promise<TokenRecord>((ok) => ok(getToken(context))), late]).finally(
      () => {
        timers.clear(handle as TimerHandle)
        ending?.removeEventListener('abort', end)
      },
    ),
  )
  if (record.stream && getToken.length === 0)
    void import('./stream-limit.ts').then(({ warnContextDropped }) => warnContextDropped(getToken))
  return record
}
