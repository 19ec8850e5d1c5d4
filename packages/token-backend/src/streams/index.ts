/** Stream limits: the settings, the ledger's rules, its stores and what viewers are told. */
export {
  durableStreamStore,
  type StreamRegistryNamespace,
  type StreamRegistryStub,
} from './durable-stream-store.ts'
export type { StreamAuditLine, StreamEvent } from './stream-answers.ts'
export { STREAM_RENEWAL_THROTTLE_MS } from './stream-gate.ts'
export {
  admitStream,
  type EndedStream,
  endStreams,
  type StreamEndReason,
  type StreamLane,
  type StreamLease,
  type StreamRequest,
  type StreamVerdict,
  type ViewerStreams,
} from './stream-ledger.ts'
export {
  STREAM_DEFAULTS,
  type StreamMode,
  type StreamPolicy,
  type StreamSettings,
  streamLimitOf,
} from './stream-settings.ts'
export { memoryStreamStore, type StreamStore } from './stream-store.ts'
export type { OperatorStream, StreamsView } from './streams-route.ts'
