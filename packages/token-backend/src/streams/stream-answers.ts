/**
 * What a viewer and the operator are told of streams: the refusal bodies (409 on `/token` and
 * `/session`, 403 on a session's leaf) and the audit lines. A viewer learns their limit and when
 * their other streams started and were last seen: never an id, an address or a device.
 */
import { fail } from '../errors.ts'
import type { StreamEndReason, StreamLane, StreamLease } from './stream-ledger.ts'

/** A refusal's status: 409 where a stream starts or refreshes, 403 on a session's leaf. */
export type StreamRefusalStatus = 409 | 403

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/**
 * Refuses a new stream: `{error, code: "stream_limit", limit, streams}`, the viewer's active
 * streams oldest first, by their times only.
 *
 * @example
 * ```ts
 * refuseStreamLimit(409, 2, verdict.active)
 * ```
 */
export function refuseStreamLimit(
  status: StreamRefusalStatus,
  limit: number,
  active: readonly StreamLease[],
): never {
  return fail(status, `stream limit reached: ${active.length} of ${limit} streams are playing`, {
    code: 'stream_limit',
    limit,
    streams: active.map((lease) => ({
      started_at: iso(lease.startedAt),
      last_seen_at: iso(lease.lastSeenAt),
    })),
  })
}

/**
 * Refuses an evicted or ended stream: `{error, code: "stream_ended", reason}`. Never admitted
 * anew under its id, which would evict the newer stream in turn.
 *
 * @example
 * ```ts
 * refuseEndedStream(403, 'evicted')
 * ```
 */
export function refuseEndedStream(status: StreamRefusalStatus, reason: StreamEndReason): never {
  return fail(
    status,
    reason === 'evicted'
      ? 'stream ended: a newer stream of this viewer took its place'
      : reason === 'networks'
        ? 'stream refused: it already plays on as many networks as allowed; start a new one'
        : 'stream ended by the operator',
    { code: 'stream_ended', reason },
  )
}

/** What the audit log records of streams. */
export type StreamEvent =
  | 'stream_admitted'
  | 'stream_refused'
  | 'stream_evicted'
  | 'stream_ended'
  | 'stream_would_refuse'

/** One audit line of a stream (JSON). */
export interface StreamAuditLine {
  event: StreamEvent
  time: string
  sub: string
  /** The stream's id (the session id in the session lane); absent on a refused start. */
  stream?: string
  lane: StreamLane
  limit: number
  /** The viewer's active streams after this (a refusal: before it; `networks`: 0, not counted). */
  active: number
  /** `stream_would_refuse`: what enforce would have done. */
  policy?: string
  /** `stream_ended`: `evicted` or `ended`; `stream_refused` of a shared id: `networks`. */
  reason?: StreamEndReason
  request_id: string
}

/**
 * An audit line of a stream.
 *
 * @example
 * ```ts
 * audit(JSON.stringify(streamAudit('stream_admitted', { sub, stream, lane, limit, active }, { requestId, nowMs })))
 * ```
 */
export function streamAudit(
  event: StreamEvent,
  fields: Omit<StreamAuditLine, 'event' | 'time' | 'request_id'>,
  { requestId, nowMs }: { requestId: string; nowMs: number },
): StreamAuditLine {
  return { event, time: new Date(nowMs).toISOString(), ...fields, request_id: requestId }
}
