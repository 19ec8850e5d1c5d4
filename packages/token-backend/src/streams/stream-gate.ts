/**
 * Where both lanes meet the stream ledger: which store counts (given, the `SESSION_REGISTRY`
 * Durable Object, or this process), the audit lines, the refusals, and what this instance
 * remembers of the streams it let through — to write a session's renewals at most once a
 * second, and to keep a stream it admitted playing while the store is down.
 */
import type { Context } from 'hono'
import type { AuditSink } from '../audit-log.ts'
import { LruMap } from '../lru.ts'
import { REVOCATION_CACHE_MS, STORE_OUTAGE_TRUST_MS } from '../session/cached-session-store.ts'
import { StoreUnavailableError } from '../store-unavailable.ts'
import type { TokenAppEnv } from '../types.ts'
import { durableStreamStore } from './durable-stream-store.ts'
import {
  refuseEndedStream,
  refuseStreamLimit,
  type StreamEvent,
  type StreamRefusalStatus,
  streamAudit,
} from './stream-answers.ts'
import type { StreamLane, StreamLease, StreamVerdict } from './stream-ledger.ts'
import type { StreamSettings } from './stream-settings.ts'
import { memoryStreamStore, type StreamStore } from './stream-store.ts'

/** What {@link streamGate} is given by `createTokenApp`. */
export interface StreamGateOptions {
  now: () => number
  audit: AuditSink
  /** The ledger; default the `SESSION_REGISTRY` Durable Object when bound, else this process. */
  store: StreamStore | undefined
}

/** One start or renewal, as a lane asks it. */
export interface StreamPass {
  sub: string
  /** This viewer's limit (`streamLimitOf`). */
  limit: number
  /** The stream the client names, if any. */
  id: string | undefined
  /** The id of a new stream. */
  newId: string
  lane: StreamLane
  untilMs: number
  keepUntilMs: number
  /** A renewal this instance wrote less than this long ago is not written again (session leaves). */
  throttleMs?: number | undefined
  /** JavaScript lane: the request's network and how many one stream may use (`StreamRequest`). */
  network?: string | undefined
  maxNetworks?: number | undefined
  /** The refusal's status: 409 (`/token`, `/session`) or 403 (a session's leaf). */
  status: StreamRefusalStatus
}

/** Answers this instance keeps; the most recently used stay. */
const REMEMBERED = 10_000

/**
 * The stream gate of an app.
 *
 * @example
 * ```ts
 * const gate = streamGate({ now: Date.now, audit, store: undefined })
 * const lease = await gate.pass(c, settings, { sub, limit, id, newId, lane: 'token', … })
 * ```
 */
export function streamGate({ now, audit, store }: StreamGateOptions) {
  const local = memoryStreamStore()
  const durable = new WeakMap<object, StreamStore>()
  // `${sub}\n${id}` → when this instance last had the store's word that the stream is active
  const seen = new LruMap<string, { atMs: number; lease: StreamLease }>(REMEMBERED)
  const key = (sub: string, id: string) => `${sub}\n${id}`
  // the throttle's one rule: this instance had the store's word less than `throttleMs` ago
  const renewedSince = (
    known: { atMs: number } | undefined,
    nowMs: number,
    throttleMs: number,
  ): boolean => known !== undefined && nowMs - known.atMs < throttleMs
  // the renewals on their way to the store, by stream (at most one per stream)
  const renewing = new Map<string, Promise<StreamLease>>()

  const storeOf = (c: Context<TokenAppEnv>): StreamStore => {
    if (store) return store
    const binding = c.env?.SESSION_REGISTRY
    if (binding === undefined) return local
    let found = durable.get(binding)
    if (found === undefined) {
      found = durableStreamStore(binding)
      durable.set(binding, found)
    }
    return found
  }

  const note = (
    c: Context<TokenAppEnv>,
    event: StreamEvent,
    nowMs: number,
    fields: Parameters<typeof streamAudit>[1],
  ) => audit(JSON.stringify(streamAudit(event, fields, { requestId: c.get('requestId'), nowMs })))

  /**
   * Lets a stream through or throws its refusal (`stream_limit`, `stream_ended`). While the
   * store is unavailable, a stream this instance saw active within {@link STORE_OUTAGE_TRUST_MS}
   * plays on; anything else is the store's 503.
   */
  async function pass(
    c: Context<TokenAppEnv>,
    settings: StreamSettings,
    ask: StreamPass,
  ): Promise<StreamLease> {
    const nowMs = now()
    const { sub, id, lane, limit } = ask
    // what this instance remembers is needed by a session's leaves (throttled) and in an
    // outage only: a refresh does not pay for the lookup
    const recall = () => (id === undefined ? undefined : seen.get(key(sub, id)))
    const known = ask.throttleMs === undefined ? undefined : recall()
    if (known !== undefined && ask.throttleMs !== undefined) {
      if (renewedSince(known, nowMs, ask.throttleMs)) return known.lease
      // the leaves that come while this stream's renewal is on its way share its answer: a
      // player's parallel requests make one write, not one each
      const pending = renewing.get(key(sub, known.lease.id))
      if (pending !== undefined) return pending
      const renewal = pass(c, settings, { ...ask, throttleMs: undefined })
      renewing.set(key(sub, known.lease.id), renewal)
      return renewal.finally(() => renewing.delete(key(sub, known.lease.id)))
    }
    let verdict: StreamVerdict | { kind: 'renewed'; lease: StreamLease; trusted: true }
    try {
      verdict = await storeOf(c).admit(sub, {
        id,
        newId: ask.newId,
        lane,
        nowMs,
        untilMs: ask.untilMs,
        keepUntilMs: ask.keepUntilMs,
        network: ask.network,
        maxNetworks: ask.maxNetworks,
        limit,
        policy: settings.policy,
        mode: settings.mode,
      })
    } catch (error) {
      const trusted = error instanceof StoreUnavailableError ? (known ?? recall()) : undefined
      if (trusted === undefined || nowMs - trusted.atMs >= STORE_OUTAGE_TRUST_MS) throw error
      verdict = { kind: 'renewed', lease: trusted.lease, trusted: true }
    }
    switch (verdict.kind) {
      case 'renewed':
        // an answer trusted through an outage is not the store's: it does not extend the trust
        if (!('trusted' in verdict))
          seen.set(key(sub, verdict.lease.id), { atMs: nowMs, lease: verdict.lease })
        return verdict.lease
      case 'ended':
        if (verdict.reason === 'networks')
          // one id from one network too many: shared between devices (the stream plays on)
          note(c, 'stream_refused', nowMs, {
            sub,
            ...(id !== undefined && { stream: id }),
            lane,
            limit,
            active: 0,
            reason: 'networks',
          })
        else if (id !== undefined) seen.delete(key(sub, id))
        return refuseEndedStream(ask.status, verdict.reason)
      case 'refused':
        note(c, 'stream_refused', nowMs, {
          sub,
          // an idle session coming back names its id; a new stream has none yet
          ...(id !== undefined && { stream: id }),
          lane,
          limit,
          active: verdict.active.length,
        })
        return refuseStreamLimit(ask.status, limit, verdict.active)
    }
    const { lease, evicted, active } = verdict
    seen.set(key(sub, lease.id), { atMs: nowMs, lease })
    if (evicted !== undefined) {
      seen.delete(key(sub, evicted.id))
      note(c, 'stream_evicted', nowMs, {
        sub,
        stream: evicted.id,
        lane: evicted.lane,
        limit,
        active,
      })
    }
    if (verdict.wouldRefuse)
      note(c, 'stream_would_refuse', nowMs, {
        sub,
        stream: lease.id,
        lane,
        limit,
        active,
        policy: settings.policy,
      })
    note(c, 'stream_admitted', nowMs, { sub, stream: lease.id, lane, limit, active })
    return lease
  }

  return {
    storeOf,
    pass,

    /**
     * Whether this instance had the store's word that `sub`'s stream `id` is active less than
     * `throttleMs` ago: a session's leaf then has nothing to write, and skips {@link pass} (one
     * lookup, nothing awaited: the leaves of a playing session pay no more than that).
     */
    renewedWithin(sub: string, id: string, throttleMs: number): boolean {
      return renewedSince(seen.get(key(sub, id)), now(), throttleMs)
    },

    /** Forgets what this instance remembers of `sub`'s stream `id` (the operator ended it). */
    forget(sub: string, id: string): void {
      seen.delete(key(sub, id))
    },

    /** Audits an operator's end. */
    noteEnded(c: Context<TokenAppEnv>, fields: { sub: string; stream?: string; ended: number }) {
      const nowMs = now()
      audit(
        JSON.stringify({
          event: 'stream_ended' satisfies StreamEvent,
          time: new Date(nowMs).toISOString(),
          sub: fields.sub,
          ...(fields.stream !== undefined && { stream: fields.stream }),
          reason: 'ended',
          ended: fields.ended,
          request_id: c.get('requestId'),
        }),
      )
    },
  }
}

/** The stream gate of an app. */
export type StreamGate = ReturnType<typeof streamGate>

/**
 * How often, at most, one instance writes a playing session's renewal: as often as it asks
 * whether the session was revoked. An evicted session is refused within this (plus a leaf's
 * lifetime, for the CDN URL handed out just before).
 */
export const STREAM_RENEWAL_THROTTLE_MS = REVOCATION_CACHE_MS

/**
 * A new stream's id: a random UUID's 32 hex digits (122 random bits). `randomUUID` draws from a
 * cached pool: a sixth of the cost of 16 bytes of `getRandomValues` in base64url, on every
 * refresh (the id of a stream that is not renewed must be ready).
 *
 * @example
 * ```ts
 * newStreamId() // '3b241101e2bb42558caf4136c566a962'
 * ```
 */
export function newStreamId(): string {
  return crypto.randomUUID().replaceAll('-', '')
}
