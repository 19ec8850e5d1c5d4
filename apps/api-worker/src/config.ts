import { ConfigError, perEnvironment, readVariable, type VariableRule } from '@proj/signing/config'
import type { ApiBindings } from './env.ts'
import { ApiError } from './errors.ts'

/** The emulator's validated configuration (every variable of `ApiBindings`, read once). */
export interface ApiConfig {
  clientKeys: string[]
  /** Keys of the second client account (1002, `SECOND_CLIENT_API_KEYS`). */
  secondClientKeys: string[]
  resellerKeys: string[]
  jwtSecret: string | undefined
  /** `/__admin` and `Prefer` on (`EMULATOR_ADMIN=true`; off when unset). */
  admin: boolean
  /** When set, `/__admin` also needs `Authorization: Bearer <this>`. */
  adminToken: string | undefined
  seed: number
  taskStepMs: number
  dnsRateLimit: { limit: number; windowMs: number }
  stateName: string
}

/** The seed of the generated data when `SEED` is not set. */
export const DEFAULT_SEED = 42

/** The rule of each variable read from the bindings (`@proj/signing/config`'s idiom). */
const RULES = {
  EMULATOR_ADMIN: [
    (text) => (text === 'true' || text === 'false' ? text : undefined),
    'must be "true" or "false".',
  ],
  // A token a deployment can be guessed into is no lock: 16 characters at least, and no spaces
  // (it travels as `Authorization: Bearer <token>`).
  EMULATOR_ADMIN_TOKEN: [
    (text) => (/^[\x21-\x7e]{16,}$/.test(text) ? text : undefined),
    'must be at least 16 printable ASCII characters without spaces.',
  ],
  SEED: [wholeNumber, 'must be a whole number.'],
  TASK_STEP_MS: [wholeNumber, 'must be a whole number.'],
  DNS_RATE_LIMIT: [
    (text) => {
      const rate = /^(\d+)\/(\d+)s$/.exec(text)
      const [limit, seconds] = [Number(rate?.[1]), Number(rate?.[2])]
      return limit >= 1 && seconds >= 1 ? { limit, windowMs: seconds * 1000 } : undefined
    },
    'must be <requests>/<seconds>s, e.g. 10/10s.',
  ],
} satisfies Record<string, VariableRule<unknown>>

function wholeNumber(text: string): number | undefined {
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined
}

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean)
}

type Rules = typeof RULES
/** What the rule of `K` parses to. */
type Value<K extends keyof Rules> = Rules[K] extends VariableRule<infer T> ? T : never

/** One variable through its rule, as the emulator reports a bad one: a 500 naming it. */
function read<K extends keyof Rules>(env: ApiBindings, variable: K): Value<K> | undefined {
  const bindings = env as unknown as Readonly<Record<string, string | undefined>>
  try {
    return readVariable(bindings, variable, RULES[variable] as VariableRule<Value<K>>)
  } catch (error) {
    if (error instanceof ConfigError) throw misconfigured(error.detail)
    throw error
  }
}

function misconfigured(detail: string): ApiError {
  return new ApiError(500, `Emulator misconfigured: ${detail}`)
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
  const clientKeys = list(env.API_KEYS)
  const secondClientKeys = list(env.SECOND_CLIENT_API_KEYS)
  const resellerKeys = list(env.RESELLER_API_KEYS)
  const dnsRateLimit = read(env, 'DNS_RATE_LIMIT') ?? { limit: 10, windowMs: 10_000 }
  const admin = read(env, 'EMULATOR_ADMIN') === 'true'
  if (!clientKeys.length && !resellerKeys.length)
    throw misconfigured('API_KEYS and RESELLER_API_KEYS are both empty.')
  return {
    clientKeys,
    secondClientKeys,
    resellerKeys,
    jwtSecret: env.JWT_SECRET || undefined,
    admin,
    adminToken: read(env, 'EMULATOR_ADMIN_TOKEN'),
    seed: read(env, 'SEED') ?? DEFAULT_SEED,
    taskStepMs: read(env, 'TASK_STEP_MS') ?? 1500,
    dnsRateLimit,
    stateName: env.STATE_NAME || 'emulator',
  }
}

/**
 * {@link parseApiConfig}, once per bindings object (Workers pass the same `env` to every request).
 *
 * @example
 * ```ts
 * const { dnsRateLimit } = apiConfig(c.env)
 * ```
 */
export const apiConfig: (env: ApiBindings) => ApiConfig = perEnvironment(parseApiConfig)
