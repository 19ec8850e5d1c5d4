import { durableObjects } from '../session/durable-unavailable.ts'
import { StoreUnavailableError } from '../store-unavailable.ts'
import {
  LATEST_LEASE_MS,
  type StreamLease,
  type StreamRequest,
  type StreamVerdict,
} from './stream-ledger.ts'
import type { StreamStore } from './stream-store.ts'

/** The RPC surface of `SessionRegistry` the stream store uses (no `cloudflare:workers` import). */
export interface StreamRegistryStub {
  admitStream(request: StreamRequest): Promise<StreamVerdict>
  activeStreams(nowMs: number): Promise<StreamLease[]>
  endStream(id: string | undefined, nowMs: number): Promise<number>
  retractStream(id: string, untilMs: number, nowMs: number): Promise<number>
}

/** The `SESSION_REGISTRY` Durable Object namespace, as far as the stream store needs it. */
export interface StreamRegistryNamespace {
  getByName(name: string): StreamRegistryStub
}

/** `request` with its lease times no later than {@link LATEST_LEASE_MS} (itself when they are). */
function withinAlarmRange(request: StreamRequest): StreamRequest {
  if (request.untilMs <= LATEST_LEASE_MS && request.keepUntilMs <= LATEST_LEASE_MS) return request
  return {
    ...request,
    untilMs: Math.min(request.untilMs, LATEST_LEASE_MS),
    keepUntilMs: Math.min(request.keepUntilMs, LATEST_LEASE_MS),
  }
}

/**
 * The {@link StreamStore} on Workers: each viewer's streams in their own `SessionRegistry`
 * Durable Object (`viewer:<sub>`, the object of their revocations), which runs one request at a
 * time: exact across every isolate and location, and no object sees more than one viewer. An
 * object that cannot answer is a `StoreUnavailableError` (`askDurableObject`): a new stream is
 * a 503, a stream the isolate saw active plays on; a new stream answered so (its id not the
 * client's) is retracted, as on Redis (`retractStream`). Leases end by {@link LATEST_LEASE_MS}
 * at the latest.
 *
 * @example
 * ```ts
 * const streams = durableStreamStore(env.SESSION_REGISTRY)
 * ```
 */
export function durableStreamStore(registry: StreamRegistryNamespace): StreamStore {
  const object = durableObjects(registry)
  const viewer = (sub: string) => object(`viewer:${sub}`)
  return {
    async admit(sub, request) {
      const asked = withinAlarmRange(request)
      try {
        return await viewer(sub)((stub) => stub.admitStream(asked))
      } catch (error) {
        // A start whose answer was lost may have run in the object (a connection lost on the
        // way back), or may still (a call on its way when the object was reset): its lease
        // would hold a slot no one plays until it lapses. The id was never given out, so it
        // is retracted at once, through a new stub (a reset object is reached again at once);
        // if the start lands after it, it admits nothing. Awaited: nothing outlives a request
        // on Workers without waitUntil. Still no answer: the lease lapses by itself. A start
        // whose id the client named is left alone: its retry renews it.
        // An object that said `overloaded` refused the call: it never ran, and a retraction
        // would only add to its load.
        if (
          error instanceof StoreUnavailableError &&
          asked.id === undefined &&
          !(error.cause as { overloaded?: unknown } | undefined)?.overloaded
        )
          await viewer(sub)((stub) =>
            stub.retractStream(asked.newId, asked.untilMs, asked.nowMs),
          ).catch(() => undefined)
        throw error
      }
    },
    list: (sub, nowMs) => viewer(sub)((stub) => stub.activeStreams(nowMs)),
    end: (sub, id, nowMs) => viewer(sub)((stub) => stub.endStream(id, nowMs)),
  }
}
