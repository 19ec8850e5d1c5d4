// What only a backend with stream limits needs, loaded on demand (`import()`, the entry
// `@proj/token-refresh/stream-limit`): the refusal's error class and its parsing (with the first
// 409), and the warning about a getToken that drops its context. A page that is never refused
// never downloads it; code that only needs to recognise the error uses `isStreamRefusal`.
import type { TokenRefreshOptions } from './types.ts'

/** What the token backend refused: a new stream over the limit, or a stream it ended. */
export type StreamRefusal = 'stream_limit' | 'stream_ended'

/** One of the viewer's active streams as a refusal lists it: times only, nothing of the device. */
export interface ActiveStream {
  /** When the stream started. */
  startedAt: Date
  /** When the backend last saw it (a refresh, or a session's leaf), when it says. */
  lastSeenAt?: Date
}

/** The details of a {@link StreamLimitError}, as the backend's 409 body gives them. */
export interface StreamLimitDetails {
  code: StreamRefusal
  /** `stream_limit`: how many streams the viewer may play at once. */
  limit?: number
  /** `stream_limit`: the viewer's active streams, oldest first. */
  streams?: ActiveStream[]
  /**
   * `stream_ended`: why (`evicted` by a newer stream, `ended` by an operator, `networks`: its id
   * came from one network more than the backend allows, i.e. shared between devices).
   */
  reason?: string
}

/**
 * The token backend refused the stream (a 409 with `code` `stream_limit` or `stream_ended`):
 * the viewer already plays as many streams as allowed, or this stream was evicted by a newer
 * one or ended by an operator. Terminal: the refresher reports it once through `onError` and its
 * `error` event, stops refreshing, and every adapter ends in its player's fatal error. It has
 * `status` 409, like a `TokenFetchError`. Throw it from your own `getToken` (one not built on
 * `fetchToken`) for the same effect; `isStreamRefusal(error)` recognises it.
 *
 * @example
 * ```ts
 * refresher.addEventListener('error', ({ detail }) => {
 *   if (detail instanceof StreamLimitError && detail.code === 'stream_limit')
 *     show(`Already playing on ${detail.limit} devices`)
 * })
 * ```
 */
export class StreamLimitError extends Error {
  override name = 'StreamLimitError' as const
  /** The backend's HTTP status: always 409. */
  readonly status = 409
  readonly code: StreamRefusal
  readonly limit: number | undefined
  readonly streams: readonly ActiveStream[] | undefined
  readonly reason: string | undefined
  constructor(message: string, { code, limit, streams, reason }: StreamLimitDetails) {
    super(message)
    this.code = code
    this.limit = limit
    this.streams = streams
    this.reason = reason
  }
}

/** A date of the wire (ISO 8601), or `undefined` when absent or unreadable. */
const dateOf = (value: unknown) => {
  const date = new Date(typeof value === 'string' ? value : Number.NaN)
  return Number.isNaN(date.getTime()) ? undefined : date
}

/**
 * The {@link StreamLimitError} a backend's answer of `status` with `body` means, `undefined` for
 * any other answer (only a 409 whose `code` is `stream_limit` or `stream_ended` is one).
 *
 * @example
 * ```ts
 * const refusal = streamRefusalOf(409, { error: 'stream limit reached', code: 'stream_limit', limit: 2 })
 * if (refusal) throw refusal
 * ```
 */
export function streamRefusalOf(status: number, body: unknown): StreamLimitError | undefined {
  const answer = (body ?? {}) as Record<string, unknown>
  const { code, error, limit, streams, reason } = answer
  if (status !== 409 || (code !== 'stream_limit' && code !== 'stream_ended')) return undefined
  const active = Array.isArray(streams)
    ? streams.flatMap((stream: { started_at?: unknown; last_seen_at?: unknown }) => {
        const startedAt = dateOf(stream?.started_at)
        const lastSeenAt = dateOf(stream?.last_seen_at)
        return startedAt ? [{ startedAt, ...(lastSeenAt && { lastSeenAt }) }] : []
      })
    : undefined
  return new StreamLimitError(
    `token backend answered 409: ${typeof error === 'string' ? error : code}`,
    {
      code,
      ...(Number.isSafeInteger(limit) && { limit: limit as number }),
      ...(active && { streams: active }),
      ...(typeof reason === 'string' && { reason }),
    },
  )
}

/** The `getToken` functions already warned about: one warning each, not one per refresh. */
const warned = new WeakSet<object>()

/**
 * Warns once per `getToken` that the backend names streams but `getToken` drops the context:
 * each of its refreshes starts a new stream, which the backend counts (and may refuse) as
 * another playback.
 *
 * @example
 * ```ts
 * if (record.stream && getToken.length === 0) warnContextDropped(getToken)
 * ```
 */
export function warnContextDropped(getToken: TokenRefreshOptions['getToken']): void {
  if (warned.has(getToken)) return
  warned.add(getToken)
  console.warn(
    '[token-refresh] the backend limits streams, but getToken ignores its context: each refresh starts a new stream. Use getToken: (context) => fetchToken(url, context)',
  )
}
