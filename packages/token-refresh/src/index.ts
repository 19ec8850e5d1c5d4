export { isTokenRefusal } from '@proj/signing/cdn-failure'
export {
  type AttemptHost,
  type AttemptNext,
  type AttemptOutcome,
  CdnAttempt,
} from './cdn-attempt.ts'
// The CDN lane is the entry `@proj/token-refresh/cdn-lane` (runtime), never imported from here:
// the refresher loads it on demand, which a static import would undo.
export type {
  CdnFailover,
  CdnFailoverHooks,
  CdnLane,
  CdnLaneHooks,
  CdnLaneSettings,
} from './cdn-lane.ts'
export {
  type CdnFailureReason,
  classifyCdnFailure,
  isTokenRejection,
} from './deprecated.ts'
export {
  fetchToken,
  retryAfterMs,
  serverDateOf,
  TokenFetchError,
  type TokenFetchInit,
  withServerDate,
} from './fetch-token.ts'
export { nextRecord, proposeStreamId } from './next-record.ts'
export {
  type DeferredEvents,
  type EventHandler,
  eventsOnDemand,
  onDemand,
} from './on-demand.ts'
export {
  endsPlayback,
  isStreamRefusal,
  MAX_RECOVERY_RETRIES,
  MAX_REJECTED_TOKENS,
  REFUSAL_RUN_MS,
  TokenRejectedError,
} from './recovery.ts'
export { CDN_FAILOVER_DEFAULTS, DEFAULT_TOKEN_TIMEOUT_MS } from './refresh-settings.ts'
export { offerRemotePlayback } from './remote-playback.ts'
// The stream refusal's class and parsing are the entry `@proj/token-refresh/stream-limit`
// (runtime), types only here: fetchToken loads them with the first 409, which a static export
// would undo. `isStreamRefusal` recognises the error without them.
export type {
  ActiveStream,
  StreamLimitDetails,
  StreamLimitError,
  StreamRefusal,
} from './stream-limit.ts'
export { createTokenPeers, pagePeers, type TokenPeer, type TokenPeers } from './token-peers.ts'
export { assertTokenRecord } from './token-record.ts'
export { TokenRefresher } from './token-refresher.ts'
export type { TokenRefresherEventMap, TypedEventTarget } from './token-refresher-events.ts'
export type {
  CdnChange,
  CdnFailoverOptions,
  CdnFailure,
  Clock,
  ProtectionMode,
  TimerHandle,
  Timers,
  TokenContext,
  TokenRecord,
  TokenRefreshOptions,
  Visibility,
} from './types.ts'
export { PROTECTION_MODES } from './types.ts'
export { type CdnRewriter, cdnRewriter, urlRewriter } from './url-rewriter.ts'
