import { askDurableObject } from '../session/durable-unavailable.ts'
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
 * a 503, a stream the isolate saw active plays on. Leases end by {@link LATEST_LEASE_MS} at the
 * latest.
 *
 * @example
 * ```ts
 * const streams = durableStreamStore(env.SESSION_REGISTRY)
 * ```
 */
export function durableStreamStore(registry: StreamRegistryNamespace): StreamStore {
  // workerd's outage marks decide (askDurableObject): a binding that is no namespace still throws
  // a plain TypeError, a 500
  const viewer =
    (sub: string) =>
    <T>(call: (viewer: StreamRegistryStub) => Promise<T>) =>
      askDurableObject(() => call(registry.getByName(`viewer:${sub}`)))
  return {
    admit: (sub, request) => viewer(sub)((stub) => stub.admitStream(withinAlarmRange(request))),
    list: (sub, nowMs) => viewer(sub)((stub) => stub.activeStreams(nowMs)),
    end: (sub, id, nowMs) => viewer(sub)((stub) => stub.endStream(id, nowMs)),
  }
}
