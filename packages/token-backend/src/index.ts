export {
  type CustomAuthorizerAppOptions,
  createTokenApp,
  type TokenApp,
  type TokenAppOptions,
} from './app.ts'
export { type AuditSink, type IssuedToken, issuedToken } from './audit-log.ts'
export {
  type AuthDecision,
  type Authorizer,
  allow,
  allowAll,
  authorizerFor,
  deny,
  jwtAuthorizer,
} from './authorize.ts'
export {
  type AuthConfig,
  type AuthConfigInput,
  type CdnConfig,
  type CdnInput,
  CONFIG_VARIABLES,
  ConfigError,
  type ConfigOptions,
  type ConfigVariable,
  type CustomAuthorizerConfigInput,
  configFromEnv,
  loadConfig,
  type PrimaryCdnConfig,
  type RedisConfig,
  SESSION_DEFAULTS,
  type SessionBinding,
  type SessionConfig,
  type TokenBackendConfig,
  type TokenBackendEnv,
  type TokenConfigInput,
  type TokenWorkerConfig,
  type TokenWorkerEnv,
  tokenConfig,
} from './config.ts'
export type { RateLimitConfig, RateLimiter, ViewerLimit } from './rate-limit.ts'
export {
  cachedSessionStore,
  SESSION_CACHE_DEFAULTS,
  type SessionCacheOptions,
  STORE_OUTAGE_TRUST_MS,
} from './session/cached-session-store.ts'
export {
  CDN_HEALTH_DEFAULTS,
  type CdnHealthEntry,
  type CdnHealthPolicy,
} from './session/cdn-health.ts'
export {
  durableSessionStore,
  type SessionRegistryNamespace,
  type SessionRegistryStub,
} from './session/durable-session-store.ts'
export { MpdError, type MpdProblem } from './session/mpd/mpd-error.ts'
export { MPD_LIMITS, type MpdLimits } from './session/mpd/mpd-limits.ts'
export { type MpdOrigin, sessionMpd } from './session/mpd/session-mpd.ts'
export { cacheApiPlaylists, memoryPlaylists, type PlaylistCache } from './session/playlist-cache.ts'
export { rewritePlaylist, type UriMapper } from './session/playlist-rewriter.ts'
export type { IssuedSession, RefusedSession } from './session/session-audit.ts'
export { type PlaylistOrigin, sessionPlaylist } from './session/session-playlist.ts'
export { REVOCATION_CACHE_MS, type SessionRecord } from './session/session-routes.ts'
export {
  memorySessionStore,
  type SessionStore,
  type StoredSession,
} from './session/session-store.ts'
export type { SessionClaims } from './session/session-token.ts'
export { StoreUnavailableError } from './store-unavailable.ts'
export * from './streams/index.ts'
export type { StreamTokenRecord } from './token-route.ts'
export type {
  TokenAppBindings,
  TokenAppEnv,
  TokenAppEnvOf,
  TokenAppVariables,
} from './types.ts'
