/**
 * The signing half of a deployment's configuration (spec 4.14): the variables every signer
 * reads (the token worker, `proj-sign`, the CDN emulator), validated in one place. A separate
 * entry (`@proj/signing/config`), so player bundles never see it.
 */
import type { SigningConfig } from './record.ts'

/** The variables of the signing configuration. */
export type SigningVariable =
  | 'CLIENT_ID'
  | 'SECRET_KEY'
  | 'CDN_DOMAIN'
  | 'CDN_DOMAIN_IP'
  | 'CDN_SCHEME'
  | 'MAX_EXPIRE_SECONDS'

/** An environment: `process.env`, a Worker's `env`, `.dev.vars` values. */
export type SigningEnv = Partial<Record<SigningVariable, string | undefined>>

/**
 * A configuration variable is missing or invalid. The message names the variable and what is
 * expected, never the value: the value may be the secret.
 *
 * @example
 * ```ts
 * try { parseSigningConfig(process.env) } catch (e) { if (e instanceof ConfigError) console.error(e.detail) }
 * // 'SECRET_KEY is required: it must be set (wrangler secret put SECRET_KEY)'
 * ```
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  /** The variable at fault. */
  readonly variable: string
  /** What is wrong, without the "server misconfigured" prefix. */
  readonly detail: string
  constructor(variable: string, expected: string) {
    super(`server misconfigured: ${variable} ${expected}`)
    this.variable = variable
    this.detail = `${variable} ${expected}`
  }
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
const HOST = new RegExp(`^${LABEL}(?:\\.${LABEL})*(?::\\d{1,5})?$`)
const IPV6_HOST = /^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/
const isHost = (text: string) => HOST.test(text) || IPV6_HOST.test(text)
const HOST_RULE = 'must be a host name, optionally with :port'

/**
 * How one variable is read: `[parse, expected]`, where `parse` turns the text into the value or
 * `undefined` when it is invalid, and `expected` says what it must be (the error's words).
 */
export type VariableRule<T> = readonly [parse: (text: string) => T | undefined, expected: string]

/**
 * Reads one variable through its rule; `undefined` when it is not set (an empty string counts as
 * not set: wrangler and shells both produce it). Every configuration here is a table of rules
 * read by this function (the signing variables below, the API emulator's).
 *
 * @throws {ConfigError} when it is set and invalid, or missing and `required`.
 * @example
 * ```ts
 * readVariable(env, 'SEED', [(t) => (/^\d+$/.test(t) ? Number(t) : undefined), 'must be a whole number'])
 * ```
 */
export function readVariable<T>(
  env: Readonly<Record<string, string | undefined>>,
  variable: string,
  [parse, expected]: VariableRule<T>,
  { required = false }: { required?: boolean } = {},
): T | undefined {
  const raw = env[variable] || undefined
  if (raw === undefined) {
    if (required) throw new ConfigError(variable, `is required: it ${expected}`)
    return undefined
  }
  const value = parse(raw)
  if (value === undefined) throw new ConfigError(variable, expected)
  return value
}

/**
 * `parse`, run once per environment object: Workers pass the same `env` to every request of an
 * isolate, so a configuration is validated once, not per request.
 *
 * @example
 * ```ts
 * export const loadConfig = perEnvironment(parseConfig)
 * ```
 */
export function perEnvironment<E extends object, C>(parse: (env: E) => C): (env: E) => C {
  const parsed = new WeakMap<E, C>()
  return function configOf(env) {
    let config = parsed.get(env)
    if (config === undefined) {
      config = parse(env)
      parsed.set(env, config)
    }
    return config
  }
}

/** The rule of each signing variable. */
const RULES: { [K in SigningVariable]: VariableRule<unknown> } = {
  CLIENT_ID: [
    (text) => (/^\d{1,20}$/.test(text) ? text : undefined),
    'must be the numeric account ID',
  ],
  SECRET_KEY: [(text) => text, 'must be set (wrangler secret put SECRET_KEY)'],
  CDN_DOMAIN: [(text) => (isHost(text) ? text : undefined), HOST_RULE],
  CDN_DOMAIN_IP: [(text) => (isHost(text) ? text : undefined), HOST_RULE],
  CDN_SCHEME: [
    (text) => (text === 'https' || text === 'http' ? text : undefined),
    'must be "https" or "http"',
  ],
  MAX_EXPIRE_SECONDS: [
    (text) =>
      /^\d+$/.test(text) && Number(text) > 0 && Number(text) <= 2 ** 31 ? Number(text) : undefined,
    'must be a positive whole number of seconds',
  ],
}

/**
 * One validated variable; `undefined` when it is not set (an empty string counts as not set:
 * wrangler and shells both produce it).
 *
 * @throws {ConfigError} when it is set and invalid, or missing and `required`.
 * @example
 * ```ts
 * const secret = signingVariable(process.env, 'SECRET_KEY', { required: true })
 * ```
 */
export function signingVariable(
  env: SigningEnv,
  variable: SigningVariable,
  options: { required?: boolean } = {},
): string | number | undefined {
  return readVariable(env, variable, RULES[variable], options) as string | number | undefined
}

/**
 * Validates the signing variables into a {@link SigningConfig}, failing on the first bad one:
 * `CLIENT_ID`, `SECRET_KEY`, `CDN_DOMAIN`, `CDN_DOMAIN_IP` (required), `CDN_SCHEME` (`https`
 * unless a local emulator is used), `MAX_EXPIRE_SECONDS` (optional cap).
 *
 * @throws {ConfigError} naming the variable, never its value.
 * @example
 * ```ts
 * import { createTokenRecord } from '@proj/signing'
 * import { parseSigningConfig } from '@proj/signing/config'
 *
 * const signing = parseSigningConfig(process.env)
 * createTokenRecord(signing, { video: 'demo', type: 'vod', clientIp: '0.0.0.0' }, { nowSeconds })
 * ```
 */
export function parseSigningConfig(env: SigningEnv): SigningConfig {
  const required = { required: true }
  const maxLifetimeSeconds = signingVariable(env, 'MAX_EXPIRE_SECONDS') as number | undefined
  return {
    clientId: signingVariable(env, 'CLIENT_ID', required) as string,
    secretKey: signingVariable(env, 'SECRET_KEY', required) as string,
    cdnDomain: signingVariable(env, 'CDN_DOMAIN', required) as string,
    cdnDomainIp: signingVariable(env, 'CDN_DOMAIN_IP', required) as string,
    scheme: (signingVariable(env, 'CDN_SCHEME') ?? 'https') as 'https' | 'http',
    ...(maxLifetimeSeconds !== undefined && { maxLifetimeSeconds }),
  }
}
