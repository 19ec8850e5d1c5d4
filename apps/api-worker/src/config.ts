import type { ApiBindings } from './env.ts'
import { ApiError } from './errors.ts'

/** The emulator's validated configuration (every variable of `ApiBindings`, read once). */
export interface ApiConfig {
  clientKeys: string[]
  resellerKeys: string[]
  jwtSecret: string | undefined
  /** `/__admin` and `Prefer` on. */
  admin: boolean
  seed: number
  taskStepMs: number
  dnsRateLimit: { limit: number; windowMs: number }
  stateName: string
}

/** The seed of the generated data when `SEED` is not set. */
export const DEFAULT_SEED = 42

const misconfigured = (variable: string, expected: string) =>
  new ApiError(500, `Emulator misconfigured: ${variable} ${expected}`)

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean)

const wholeNumber = (variable: string, text: string | undefined, fallback: number): number => {
  if (!text) return fallback
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw misconfigured(variable, 'must be a whole number.')
  return Number(text)
}

/**
 * Validates the bindings; a bad value is a 500 naming the variable and what it must be (never a
 * silent fallback: a typo in DNS_RATE_LIMIT must not become another limit).
 *
 * @example
 * ```ts
 * parseApiConfig({ ...env, DNS_RATE_LIMIT: '10/10s' }).dnsRateLimit // { limit: 10, windowMs: 10000 }
 * ```
 */
export function parseApiConfig(env: ApiBindings): ApiConfig {
  const admin = env.EMULATOR_ADMIN ?? ''
  if (!['true', 'false', ''].includes(admin))
    throw misconfigured('EMULATOR_ADMIN', 'must be "true" or "false".')
  const rate = /^(\d+)\/(\d+)s$/.exec(env.DNS_RATE_LIMIT || '10/10s')
  if (!rate || Number(rate[1]) < 1 || Number(rate[2]) < 1)
    throw misconfigured('DNS_RATE_LIMIT', 'must be <requests>/<seconds>s, e.g. 10/10s.')
  const clientKeys = list(env.API_KEYS)
  const resellerKeys = list(env.RESELLER_API_KEYS)
  if (!clientKeys.length && !resellerKeys.length)
    throw misconfigured('API_KEYS', 'and RESELLER_API_KEYS are both empty.')
  return {
    clientKeys,
    resellerKeys,
    jwtSecret: env.JWT_SECRET || undefined,
    admin: admin === 'true',
    seed: wholeNumber('SEED', env.SEED, DEFAULT_SEED),
    taskStepMs: wholeNumber('TASK_STEP_MS', env.TASK_STEP_MS, 1500),
    dnsRateLimit: { limit: Number(rate[1]), windowMs: Number(rate[2]) * 1000 },
    stateName: env.STATE_NAME || 'emulator',
  }
}

const cache = new WeakMap<ApiBindings, ApiConfig>()

/**
 * {@link parseApiConfig}, once per bindings object (Workers pass the same `env` to every request).
 *
 * @example
 * ```ts
 * const { dnsRateLimit } = apiConfig(c.env)
 * ```
 */
export function apiConfig(env: ApiBindings): ApiConfig {
  let config = cache.get(env)
  if (!config) {
    config = parseApiConfig(env)
    cache.set(env, config)
  }
  return config
}
