/** Who may watch how much: the settings of stream limits (`STREAM_*`), defaults in one place. */

/** What happens to a viewer's new stream when all their slots are taken. */
export type StreamPolicy = 'reject-newest' | 'evict-oldest'

/** `enforce` refuses (or evicts); `log` refuses nothing and audits what `enforce` would have done. */
export type StreamMode = 'enforce' | 'log'

/** The stream limits of a configuration (`STREAM_LIMIT` and the variables beside it). */
export interface StreamSettings {
  /** Streams one viewer may play at once, unless their JWT's {@link claim} says otherwise. */
  limit: number
  policy: StreamPolicy
  mode: StreamMode
  /** The JWT claim (an integer ≥ 1) that overrides {@link limit} for its viewer. */
  claim: string
  /** A token-lane stream stays active until its last token's expiry plus this, in seconds. */
  graceSeconds: number
  /** A session stream stays active this long after its last leaf (or `/session`), in seconds. */
  sessionIdleSeconds: number
}

/** The most streams one viewer may be allowed, by `STREAM_LIMIT` or by the JWT's claim. */
export const MOST_STREAMS = 9999

/** The defaults of {@link StreamSettings} but the limit, which has none (unset: no limits). */
export const STREAM_DEFAULTS = {
  policy: 'reject-newest',
  mode: 'enforce',
  claim: 'max_streams',
  graceSeconds: 30,
  sessionIdleSeconds: 60,
} as const satisfies Omit<StreamSettings, 'limit'>

/**
 * The limit of one viewer: their JWT's claim when it is a whole number from 1 to
 * {@link MOST_STREAMS}, else the configuration's (a claim that is not one is ignored, never read
 * as "no limit").
 *
 * @example
 * ```ts
 * streamLimitOf({ ...STREAM_DEFAULTS, limit: 2 }, { max_streams: 4 }) // 4
 * streamLimitOf({ ...STREAM_DEFAULTS, limit: 2 }, { max_streams: 'lots' }) // 2
 * ```
 */
export function streamLimitOf(settings: StreamSettings, payload: unknown): number {
  const claimed =
    typeof payload === 'object' && payload !== null
      ? (payload as Record<string, unknown>)[settings.claim]
      : undefined
  return typeof claimed === 'number' &&
    Number.isInteger(claimed) &&
    claimed >= 1 &&
    claimed <= MOST_STREAMS
    ? claimed
    : settings.limit
}
