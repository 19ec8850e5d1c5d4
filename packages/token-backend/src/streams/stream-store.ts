import { StoreUnavailableError } from '../store-unavailable.ts'
import {
  admitStream,
  endStreams,
  keptUntil,
  NO_STREAMS,
  pruneStreams,
  type StreamLease,
  type StreamRequest,
  type StreamVerdict,
  type ViewerStreams,
} from './stream-ledger.ts'

/**
 * Where the viewers' active streams are counted: memory (`memoryStreamStore`, one process), the
 * `SessionRegistry` Durable Object (`durableStreamStore`), Redis (`redisStreamStore`), or yours.
 * `admit` must be atomic per viewer: two instances starting streams of one viewer at once must
 * never both see the last free slot (`describeStreamStore` tests it). A store that cannot answer
 * throws `StoreUnavailableError` (the app answers 503).
 */
export interface StreamStore {
  /** Admits or renews one stream of `sub`, by the rules of `admitStream` (`stream-ledger.ts`). */
  admit(sub: string, request: StreamRequest): Promise<StreamVerdict>
  /** The viewer's active streams at `nowMs`, oldest first. */
  list(sub: string, nowMs: number): Promise<StreamLease[]>
  /** Ends one stream (`id`) or all of the viewer's; how many were active. */
  end(sub: string, id: string | undefined, nowMs: number): Promise<number>
}

/**
 * The stream ledger in process memory: exact for one process (Node without Redis, tests). A
 * viewer's record goes once nothing in it is needed; at most `capacity` viewers are kept (then
 * a new viewer's stream is a 503 rather than memory growing without bound).
 *
 * @example
 * ```ts
 * const app = createTokenApp({ config, streams: memoryStreamStore() })
 * ```
 */
export function memoryStreamStore({
  capacity = 200_000,
}: {
  capacity?: number
} = {}): StreamStore & { readonly size: number } {
  const viewers = new Map<string, ViewerStreams>()
  let swept = 0
  const sweep = (nowMs: number) => {
    if (nowMs - swept < 60_000 && viewers.size < capacity) return
    swept = nowMs
    for (const [sub, state] of viewers) if (keptUntil(state) <= nowMs) viewers.delete(sub)
  }
  const recordOf = (sub: string, nowMs: number): ViewerStreams => {
    const before = viewers.get(sub)
    if (before !== undefined) return before
    sweep(nowMs)
    if (viewers.size >= capacity) throw new StoreUnavailableError('stream ledger is full')
    return NO_STREAMS
  }
  const keep = (sub: string, state: ViewerStreams, nowMs: number) => {
    if (keptUntil(state) > nowMs) viewers.set(sub, state)
    else viewers.delete(sub)
  }
  return {
    async admit(sub, request) {
      const { state, verdict } = admitStream(recordOf(sub, request.nowMs), request)
      keep(sub, state, request.nowMs)
      return verdict
    },
    async list(sub, nowMs) {
      return pruneStreams(viewers.get(sub) ?? NO_STREAMS, nowMs).streams
    },
    async end(sub, id, nowMs) {
      if (!viewers.has(sub)) return 0
      const { state, ended } = endStreams(recordOf(sub, nowMs), id, nowMs)
      keep(sub, state, nowMs)
      return ended
    },
    get size() {
      return viewers.size
    },
  }
}
