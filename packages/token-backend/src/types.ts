import type { Env } from 'hono'
import type { RequestIdVariables } from 'hono/request-id'
import type { TokenBackendConfig, TokenBackendEnv } from './config.ts'
import type { RateLimiter } from './rate-limit.ts'
import type { SessionRegistryStub } from './session/durable-session-store.ts'
import type { StreamRegistryStub } from './streams/durable-stream-store.ts'

/** The bindings the token app reads when they are there: its variables, and two Workers bindings. */
export type TokenAppBindings = TokenBackendEnv & {
  /** Workers Rate Limiting binding (`ratelimits` in wrangler.jsonc); optional. */
  TOKEN_RATE_LIMITER?: RateLimiter
  /**
   * The `SessionRegistry` Durable Object namespace (sessions' deny list, viewers' streams);
   * optional.
   */
  SESSION_REGISTRY?: { getByName(name: string): SessionRegistryStub & StreamRegistryStub }
}

/** The per-request variables the token app sets. */
export type TokenAppVariables = RequestIdVariables & {
  /** The validated configuration serving this request (named so as not to clash with yours). */
  tokenConfig: TokenBackendConfig
  /** The viewer JWT's payload once `AUTH_MODE=jwt` verified it. */
  jwtPayload: unknown
}

/** Hono environment of the token app: bindings plus per-request variables. */
export interface TokenAppEnv {
  Bindings: TokenAppBindings
  Variables: TokenAppVariables
}

/**
 * The token app's environment inside an app whose own environment is `E`: your bindings and
 * variables next to the app's, so an authorizer reads `c.env.MY_BINDING` without a cast.
 */
export type TokenAppEnvOf<E extends Env> = {
  Bindings: TokenAppBindings & (E extends { Bindings: infer B extends object } ? B : unknown)
  Variables: TokenAppVariables & (E extends { Variables: infer V extends object } ? V : unknown)
}
