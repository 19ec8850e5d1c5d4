/**
 * The stream ledger of one viewer as pure functions: admit (or renew), list, end. The memory
 * store and the Durable Object run them as they are; the Redis store runs the same rules in one
 * Lua script (`redis/redis-stream-store.ts`); the conformance suite holds all three to them.
 */
import type { StreamMode, StreamPolicy } from './stream-settings.ts'

/** Where a stream plays: a chain of `/token` refreshes, or one edge session. */
export type StreamLane = 'token' | 'session'

/** One active stream. Times are Unix milliseconds. */
export interface StreamLease {
  id: string
  lane: StreamLane
  startedAt: number
  lastSeenAt: number
  /** Active until then: the last token's expiry + grace, or the last leaf + the idle time. */
  expiresAt: number
  /**
   * How long an end of this stream is remembered, so that its next refresh or leaf is told
   * "ended" rather than admitted anew: the session's own expiry, or {@link expiresAt}.
   */
  keepUntil: number
  /**
   * JavaScript lane: the networks (`sessionNetwork`) its refreshes came from, at most the
   * request's `maxNetworks`: one id shared between devices counts as one stream on that many
   * networks at most.
   */
  networks?: string[]
}

/**
 * Why a stream was ended (`evicted`, `ended`), or why a refresh of it was refused while it plays
 * on (`networks`: from one network more than `maxNetworks`; only that refresh is refused).
 */
export type StreamEndReason = 'evicted' | 'ended' | 'networks'

/**
 * An ended stream, remembered until `until` (Unix ms). `retracted`: a new stream whose start was
 * answered 503 (its id never reached anyone), remembered so that the start, should it land after
 * its retraction (a call still on its way), admits nothing (`retractStream`).
 */
export interface EndedStream {
  id: string
  reason: StreamEndReason | 'retracted'
  until: number
}

/** What a store keeps per viewer. */
export interface ViewerStreams {
  /** Active (and maybe expired, not yet pruned) streams, in the order they started. */
  streams: StreamLease[]
  ended: EndedStream[]
}

/** One start or renewal of a stream, as the routes ask the store. */
export interface StreamRequest {
  /** The stream the client names (the previous record's `stream`, the session id); none: new. */
  id?: string | undefined
  /**
   * The id a new stream gets: the id the client named when this ledger does not know it (a
   * retried first `/token`, a reload resuming its stream), a fresh random id, or the session id.
   */
  newId: string
  lane: StreamLane
  nowMs: number
  /** The lease runs until then (Unix ms). */
  untilMs: number
  /** See {@link StreamLease.keepUntil}. */
  keepUntilMs: number
  /** The network this request comes from (JavaScript lane), counted in {@link StreamLease.networks}. */
  network?: string | undefined
  /** How many networks one stream may be refreshed from (with `network`). */
  maxNetworks?: number | undefined
  /** This viewer's limit (the claim's, or the configuration's). */
  limit: number
  policy: StreamPolicy
  mode: StreamMode
}

/** The store's answer to a {@link StreamRequest}. */
export type StreamVerdict =
  /** The named stream is active: its lease now runs to `untilMs` (never shortened). */
  | { kind: 'renewed'; lease: StreamLease }
  /**
   * A new stream. `evicted`: the oldest, ended to make room (`evict-oldest`); `wouldRefuse`: in
   * `log` mode, what `enforce` would have refused or evicted. `active`: the viewer's active
   * streams, this one included.
   */
  | {
      kind: 'admitted'
      lease: StreamLease
      evicted: StreamLease | undefined
      wouldRefuse: boolean
      active: number
    }
  /** No room (`reject-newest`): the viewer's active streams, oldest first. */
  | { kind: 'refused'; active: StreamLease[] }
  /** The named stream was evicted or ended by the operator: never admitted anew. */
  | { kind: 'ended'; reason: StreamEndReason }

/**
 * Most evicted streams remembered per viewer. Each is remembered so that its player's next
 * refresh is told "ended", but a viewer starting streams in a loop under `evict-oldest` would
 * otherwise grow the record, and the time every call of every instance spends reading it,
 * without bound (50,000 entries: 80 ms of Redis per call). Forgetting the oldest is safe: a
 * forgotten id can only start a new stream, which `evict-oldest` always allows.
 */
export const MOST_EVICTIONS_REMEMBERED = 64

/**
 * Most active streams a viewer keeps in `log` mode beyond the limit: nothing is refused there, so
 * the oldest past that margin are forgotten (a forgotten one that comes back is a new stream,
 * admitted as every stream is in `log` mode); the verdicts stay the same.
 */
export const MOST_LOGGED_OVER_LIMIT = 64

/**
 * The latest time (Unix ms) a lease is kept until in the Durable Object. Its alarm, which deletes
 * the viewer's record a minute after the last lease, refuses a date that far ahead ("This API
 * doesn't support dates after 2189"), and it is set after the lease is written: the request was
 * a 500, the record was never deleted, and every later write of that viewer failed the same way.
 * A token lane lease may ask for more (an absolute `expire` far ahead, no `MAX_EXPIRE_SECONDS`):
 * until 2188 is as good as forever for it. A year before the limit, so the alarm's minute and
 * rounding stay far inside it.
 */
export const LATEST_LEASE_MS = Date.UTC(2188, 0, 1)

/** A viewer with nothing recorded. */
export const NO_STREAMS: ViewerStreams = Object.freeze({ streams: [], ended: [] })

/** What is still alive at `nowMs`: expired leases and forgotten ends dropped. */
export function pruneStreams(state: ViewerStreams, nowMs: number): ViewerStreams {
  // the common case (every refresh of a playing stream) allocates nothing
  if (
    state.streams.every((lease) => lease.expiresAt > nowMs) &&
    state.ended.every((end) => end.until > nowMs)
  )
    return state
  return {
    streams: state.streams.filter((lease) => lease.expiresAt > nowMs),
    ended: state.ended.filter((end) => end.until > nowMs),
  }
}

/**
 * Admits or renews one stream: the named stream renews when active, is refused for good when
 * ended; anything else (no id, an unknown or expired one) is a new stream, admitted while the
 * viewer has fewer than `limit` active ones, else refused (`reject-newest`) or admitted with the
 * oldest evicted (`evict-oldest`); in `log` mode always admitted, the verdict saying what
 * `enforce` would have done.
 *
 * @example
 * ```ts
 * const { state, verdict } = admitStream(NO_STREAMS, { newId: 'abc…', lane: 'token', nowMs,
 *   untilMs: nowMs + 90_000, keepUntilMs: nowMs + 90_000, limit: 2, policy: 'reject-newest',
 *   mode: 'enforce' })
 * verdict.kind // 'admitted'
 * ```
 */
export function admitStream(
  before: ViewerStreams,
  request: StreamRequest,
): { state: ViewerStreams; verdict: StreamVerdict } {
  const { nowMs } = request
  const live = pruneStreams(before, nowMs)
  const named = request.id
  if (named !== undefined) {
    const ended = live.ended.find((end) => end.id === named)
    if (ended !== undefined)
      return { state: live, verdict: { kind: 'ended', reason: endReason(ended) } }
    const found = live.streams.find((lease) => lease.id === named)
    if (found !== undefined) {
      const networks = networksAfter(found, request)
      if (networks === undefined)
        return { state: live, verdict: { kind: 'ended', reason: 'networks' } }
      // every refresh of a playing stream comes here: one literal of one shape, no spread
      const lease: StreamLease = {
        id: found.id,
        lane: found.lane,
        startedAt: found.startedAt,
        lastSeenAt: Math.max(found.lastSeenAt, nowMs),
        expiresAt: Math.max(found.expiresAt, request.untilMs),
        keepUntil: Math.max(found.keepUntil, request.keepUntilMs),
      }
      if (networks.length > 0) lease.networks = networks
      const streams = live.streams.map((each) => (each === found ? lease : each))
      return { state: { ...live, streams }, verdict: { kind: 'renewed', lease } }
    }
  }
  // a start retracted before it landed: nobody waits for its answer, it only must take no slot
  if (named === undefined && live.ended.some(isRetraction(request.newId)))
    return { state: live, verdict: { kind: 'ended', reason: 'ended' } }
  const lease: StreamLease = {
    id: request.newId,
    lane: request.lane,
    startedAt: nowMs,
    lastSeenAt: nowMs,
    expiresAt: request.untilMs,
    keepUntil: Math.max(request.untilMs, request.keepUntilMs),
    ...(request.network !== undefined && { networks: [request.network] }),
  }
  // a new stream whose id is active already (the same session coming back twice at once)
  const others = live.streams.filter((each) => each.id !== lease.id)
  const full = others.length >= request.limit
  if (full && request.mode === 'enforce' && request.policy === 'reject-newest')
    return { state: live, verdict: { kind: 'refused', active: others } }
  const evict = full && request.mode === 'enforce'
  // evict-oldest makes room for one: the oldest streams beyond limit - 1 go
  const evicted = evict ? others.slice(0, others.length - request.limit + 1) : []
  // log mode evicts nothing: past the limit and its margin, the oldest are forgotten
  const forgotten = evict
    ? 0
    : Math.max(0, others.length - request.limit - MOST_LOGGED_OVER_LIMIT + 1)
  const kept = others.slice(evicted.length + forgotten)
  const state: ViewerStreams = {
    streams: [...kept, lease],
    ended:
      evicted.length === 0
        ? live.ended
        : rememberedEnds([
            ...live.ended,
            ...evicted.map((old) => ({
              id: old.id,
              reason: 'evicted' as const,
              until: old.keepUntil,
            })),
          ]),
  }
  return {
    state,
    verdict: {
      kind: 'admitted',
      lease,
      evicted: evicted.at(-1),
      wouldRefuse: full && !evict,
      active: kept.length + 1,
    },
  }
}

/** What a refresh of an ended stream is told (a retracted id was never given out: "ended"). */
const endReason = (end: EndedStream): StreamEndReason =>
  end.reason === 'retracted' ? 'ended' : end.reason

const isRetraction = (id: string) => (end: EndedStream) =>
  end.id === id && end.reason === 'retracted'

/**
 * `ended` with its oldest evictions and retractions beyond {@link MOST_EVICTIONS_REMEMBERED}
 * forgotten (a forgotten retraction matters only to a start landing later still).
 */
function rememberedEnds(ended: EndedStream[]): EndedStream[] {
  let over = -MOST_EVICTIONS_REMEMBERED
  for (const end of ended) if (end.reason !== 'ended') over += 1
  // the operator's ends are kept: only the operator adds them
  return over <= 0 ? ended : ended.filter((end) => end.reason === 'ended' || over-- <= 0)
}

/**
 * The networks of `lease` once `request` renews it; `undefined` when the request comes from one
 * network more than `maxNetworks` allows (the stream plays on for the others).
 */
function networksAfter(lease: StreamLease, request: StreamRequest): string[] | undefined {
  const known = lease.networks ?? []
  const { network, maxNetworks = Number.POSITIVE_INFINITY } = request
  if (network === undefined || known.includes(network)) return known
  return known.length < maxNetworks ? [...known, network] : undefined
}

/**
 * Ends one stream of the viewer (`id`), or all of them: each is remembered as ended until its
 * `keepUntil`, so its next refresh or leaf is refused. Returns how many were active.
 *
 * @example
 * ```ts
 * const { state, ended } = endStreams(before, undefined, Date.now()) // all of them
 * ```
 */
export function endStreams(
  before: ViewerStreams,
  id: string | undefined,
  nowMs: number,
): { state: ViewerStreams; ended: number } {
  const live = pruneStreams(before, nowMs)
  const ending = live.streams.filter((lease) => id === undefined || lease.id === id)
  return {
    state: {
      streams: live.streams.filter((lease) => !ending.includes(lease)),
      ended: [
        ...live.ended,
        ...ending.map((lease) => ({
          id: lease.id,
          reason: 'ended' as const,
          until: lease.keepUntil,
        })),
      ],
    },
    ended: ending.length,
  }
}

/**
 * Retracts a new stream whose start was answered 503 (the store did not answer in time): its
 * id never reached anyone, so a lease under it would hold a slot no one plays until it lapses.
 * The lease goes if the start landed; either way the id is remembered (until `untilMs`, when
 * such a lease would have lapsed anyway), so a start that lands after its retraction admits
 * nothing: the order of the two cannot matter. Returns how many leases it dropped (0 or 1).
 *
 * @example
 * ```ts
 * const { state } = retractStream(before, request.newId, request.untilMs, Date.now())
 * ```
 */
export function retractStream(
  before: ViewerStreams,
  id: string,
  untilMs: number,
  nowMs: number,
): { state: ViewerStreams; retracted: number } {
  const live = pruneStreams(before, nowMs)
  const streams = live.streams.filter((lease) => lease.id !== id)
  if (untilMs <= nowMs || live.ended.some(isRetraction(id)))
    return { state: { ...live, streams }, retracted: live.streams.length - streams.length }
  const ended = rememberedEnds([...live.ended, { id, reason: 'retracted', until: untilMs }])
  return { state: { streams, ended }, retracted: live.streams.length - streams.length }
}

/** Until when a viewer's record is needed at all (Unix ms); 0 when nothing is. */
export function keptUntil(state: ViewerStreams): number {
  // a loop: the memory store asks this on every refresh
  let until = 0
  for (const lease of state.streams) if (lease.keepUntil > until) until = lease.keepUntil
  for (const end of state.ended) if (end.until > until) until = end.until
  return until
}
