import type { TokenWorkerConfig, TokenWorkerEnv } from './config.ts'

/** Hono environment of the token app: bindings plus per-request variables. */
export interface TokenAppEnv {
  Bindings: TokenWorkerEnv
  Variables: {
    config: TokenWorkerConfig
    jwtPayload: unknown
  }
}
