import type { StreamLease, StreamRequest, StreamVerdict } from './stream-ledger.ts'
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

/**
 * The {@link StreamStore} on Workers: each viewer's streams in their own `SessionRegistry`
 * Durable Object (`viewer:<sub>`, the object of their revocations), which runs one request at a
 * time: exact across every isolate and location, and no object sees more than one viewer.
 *
 * @example
 * ```ts
 * const streams = durableStreamStore(env.SESSION_REGISTRY)
 * ```
 */
export function durableStreamStore(registry: StreamRegistryNamespace): StreamStore {
  const viewer = (sub: string) => registry.getByName(`viewer:${sub}`)
  return {
    admit: (sub, request) => viewer(sub).admitStream(request),
    list: (sub, nowMs) => viewer(sub).activeStreams(nowMs),
    end: (sub, id, nowMs) => viewer(sub).endStream(id, nowMs),
  }
}
