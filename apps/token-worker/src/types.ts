import type { RequestIdVariables } from 'hono/request-id'
import type { TokenWorkerConfig, TokenWorkerEnv } from './config.ts'
import type { RateLimiter } from './rate-limit.ts'
import type { SessionRegistryNamespace } from './session/durable-session-store.ts'

/** Hono environment of the token app: bindings plus per-request variables. */
export interface TokenAppEnv {
  Bindings: TokenWorkerEnv & {
    /** Workers Rate Limiting binding (`ratelimits` in wrangler.jsonc); optional. */
    TOKEN_RATE_LIMITER?: RateLimiter
    /** The `SessionRegistry` Durable Object namespace (sessions' deny list); optional. */
    SESSION_REGISTRY?: SessionRegistryNamespace
  }
  Variables: RequestIdVariables & {
    config: TokenWorkerConfig
    jwtPayload: unknown
  }
}
