import type { RequestIdVariables } from 'hono/request-id'
import type { TokenWorkerConfig, TokenWorkerEnv } from './config.ts'

/** Hono environment of the token app: bindings plus per-request variables. */
export interface TokenAppEnv {
  Bindings: TokenWorkerEnv
  Variables: RequestIdVariables & {
    config: TokenWorkerConfig
    jwtPayload: unknown
  }
}
