export { createTokenApp, type TokenApp, type TokenAppOptions } from './app.ts'
export { type AuditSink, batchedLines, type IssuedToken, issuedToken } from './audit-log.ts'
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
  ConfigError,
  loadConfig,
  parseConfig,
  type TokenWorkerConfig,
  type TokenWorkerEnv,
} from './config.ts'
export type { TokenAppEnv } from './types.ts'
