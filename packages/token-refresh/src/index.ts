export {
  CDN_FAILOVER_DEFAULTS,
  type CdnChange,
  type CdnFailover,
  type CdnFailoverHooks,
  type CdnFailoverOptions,
  type CdnFailure,
  type CdnFailureReason,
  classifyCdnFailure,
  createCdnFailover,
} from './cdn-failover.ts'
export {
  fetchToken,
  retryAfterMs,
  serverDateOf,
  TokenFetchError,
  withServerDate,
} from './fetch-token.ts'
export {
  isTokenRejection,
  MAX_RECOVERY_RETRIES,
  MAX_REJECTED_TOKENS,
  REFUSAL_RUN_MS,
  TokenRejectedError,
} from './recovery.ts'
export { offerRemotePlayback } from './remote-playback.ts'
export { createTokenPeers, pagePeers, type TokenPeer, type TokenPeers } from './token-peers.ts'
export { assertTokenRecord } from './token-record.ts'
export { TokenRefresher, type TokenRefresherEventMap } from './token-refresher.ts'
export type {
  Clock,
  ProtectionMode,
  TimerHandle,
  Timers,
  TokenRecord,
  TokenRefreshOptions,
  Visibility,
} from './types.ts'
export { PROTECTION_MODES } from './types.ts'
export { type CdnRewriter, cdnRewriter, urlRewriter } from './url-rewriter.ts'
