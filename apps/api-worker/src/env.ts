import type { RequestIdVariables } from 'hono/request-id'
import type { Dataset } from './data/dataset.ts'
import type { EmulatorState } from './state/emulator-state.ts'

/** Who made the request, resolved by the auth middleware. Never carries the key itself. */
export interface Principal {
  /** `client` credentials see their own account; `reseller` credentials also the reseller APIs. */
  kind: 'client' | 'reseller'
  /** The account the credential belongs to. */
  clientId: number
  /** How it authenticated. */
  via: 'apikey' | 'jwt'
  /** A stable, non-secret label for rate limits and the journal (`apikey:3`, `jwt:user@…`). */
  label: string
}

/** Bindings: wrangler.jsonc vars, secrets (.dev.vars locally) and the state Durable Object. */
export interface ApiBindings {
  /** Client API keys, comma-separated (secret): they act for client 1001. */
  API_KEYS?: string
  /** API keys of a second client account (1002), comma-separated (secret); optional. */
  SECOND_CLIENT_API_KEYS?: string
  /** Reseller (admin portal) API keys, comma-separated (secret). */
  RESELLER_API_KEYS?: string
  /** HMAC secret for login JWTs (secret). */
  JWT_SECRET?: string
  /**
   * `true` enables /__admin and the `Prefer` header; `false` or unset disables both. Off in
   * wrangler.jsonc (what a deploy ships), on in .dev.vars for `npm start`.
   */
  EMULATOR_ADMIN?: string
  /** When set, /__admin also needs `Authorization: Bearer <token>` (secret, 16+ characters). */
  EMULATOR_ADMIN_TOKEN?: string
  /** Seed of the generated data (integer); `POST /__admin/reset` can change it. */
  SEED?: string
  /** Milliseconds a cloud task spends in NEW and in RUNNING. */
  TASK_STEP_MS?: string
  /** DNS analysis rate limit per credential: `<requests>/<seconds>s`, e.g. `10/10s`. */
  DNS_RATE_LIMIT?: string
  /** Name of the state object (default `emulator`): separate names give separate worlds. */
  STATE_NAME?: string
  STATE: DurableObjectNamespace<EmulatorState>
}

/** Hono environment of the API app. */
export interface ApiEnv {
  Bindings: ApiBindings
  Variables: RequestIdVariables & {
    principal: Principal
    data: Dataset
  }
}
