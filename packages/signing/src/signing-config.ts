/**
 * The signing variables (spec 4.14) and the rule machinery every configuration here shares: a
 * rule reads a variable's text or an object's value, `ConfigError` names what is wrong (never
 * the value). Re-exported by `@proj/signing/config`.
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
 * // 'SECRET_KEY is required: it must be set, without spaces or line breaks at either end (wrangler secret put SECRET_KEY)'
 * ```
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  /** The variable at fault (or the field, `config.signing.cdnDomain`, in an object). */
  readonly variable: string
  /** What is wrong with it, without its name or the advice (`is required: it must be set`). */
  readonly expected: string
  /** Where such a value is set, when that helps (`wrangler secret put SECRET_KEY`); else `undefined`. */
  readonly advice: string | undefined
  /** What is wrong, without the "server misconfigured" prefix: name, expected, (advice). */
  readonly detail: string
  constructor(variable: string, expected: string, advice?: string) {
    const detail = `${variable} ${expected}${advice === undefined ? '' : ` (${advice})`}`
    super(`server misconfigured: ${detail}`)
    this.variable = variable
    this.expected = expected
    this.advice = advice
    this.detail = detail
  }
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
const HOST = new RegExp(`^${LABEL}(?:\\.${LABEL})*(?::\\d{1,5})?$`)
const IPV6_HOST = /^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/
/** A host as a URL takes it: the pattern, then the URL parser (an IPv6 address, a port ≤ 65535). */
const isHost = (text: string) => {
  if (!HOST.test(text) && !IPV6_HOST.test(text)) return false
  try {
    return new URL(`https://${text}/`).host !== ''
  } catch {
    return false
  }
}

/** How a form names a variable in its errors: the variable itself, or the object's field. */
export type Naming = (variable: string) => string

/**
 * How one variable is read: `[parse, expected]`, where `parse` turns the text into the value or
 * `undefined` when it is invalid, and `expected` says what it must be (the error's words).
 */
export type VariableRule<T> = readonly [parse: (text: string) => T | undefined, expected: string]

/**
 * One setting's rule in both of its forms: a variable's text, or the value of a configuration
 * object (checked as that value: a number is never turned into text and parsed back).
 */
export interface SettingRule<T> {
  /** The variable's text → the value; `undefined` when invalid. */
  readonly text: (text: string) => T | undefined
  /** The object form's value → the value; `undefined` when invalid. */
  readonly value: (value: unknown) => T | undefined
  /** What a valid one is, the error's words; a function when they name other settings. */
  readonly expected: string | ((name: Naming) => string)
  /** A secret: the variables' form advises `wrangler secret put <NAME>`. */
  readonly secret?: boolean
}

/**
 * A rule for a setting that is text in both forms (a host, a secret, a choice).
 *
 * @example
 * ```ts
 * const scheme = textRule((t) => (t === 'https' || t === 'http' ? t : undefined), 'must be "https" or "http"')
 * ```
 */
export function textRule<T>(
  parse: (text: string) => T | undefined,
  expected: SettingRule<T>['expected'],
  { secret = false }: { secret?: boolean } = {},
): SettingRule<T> {
  return {
    text: parse,
    value: (value) => (typeof value === 'string' ? parse(value) : undefined),
    expected,
    ...(secret && { secret }),
  }
}

/**
 * A rule for a whole number from `min` to `max`: decimal digits as a variable, an integer in an
 * object.
 *
 * @example
 * ```ts
 * const priority = wholeNumberRule(0, 999, 'must be a whole number from 0 to 999')
 * priority.text('7') // 7
 * priority.value(1.5) // undefined
 * ```
 */
export function wholeNumberRule(
  min: number,
  max: number,
  expected: SettingRule<number>['expected'],
): SettingRule<number> {
  const inRange = (n: number) => (Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined)
  return {
    text: (text) => (/^\d{1,16}$/.test(text) ? inRange(Number(text)) : undefined),
    value: (value) => (typeof value === 'number' ? inRange(value) : undefined),
    expected,
  }
}

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
  rule: VariableRule<T> | SettingRule<T>,
  { required = false }: { required?: boolean } = {},
): T | undefined {
  const [parse, given] = 'text' in rule ? [rule.text, rule.expected] : rule
  const expected = typeof given === 'function' ? given((name) => name) : given
  const advice = 'secret' in rule && rule.secret ? `wrangler secret put ${variable}` : undefined
  const raw = env[variable] || undefined
  if (raw === undefined) {
    if (required) throw new ConfigError(variable, `is required: it ${expected}`, advice)
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

const host = textRule(
  (text) => (isHost(text) ? text : undefined),
  'must be a host name, optionally with :port',
)
const scheme = textRule(
  (text): 'https' | 'http' | undefined => (text === 'https' || text === 'http' ? text : undefined),
  'must be "https" or "http"',
)
/**
 * A rule for a CDN secret: any text but one with whitespace at either end. Kept with its line
 * break (a Kubernetes secret encoded with `echo … | base64`) or a pasted space, it would sign
 * every token with it and the CDN would refuse them all (403), far from here; refused here, where
 * it is named.
 *
 * @example
 * ```ts
 * secretRule('must be set').text('s3cret\n') // undefined
 * ```
 */
export const secretRule = (expected: string): SettingRule<string> =>
  textRule((text) => (text.trim() === text ? text : undefined), `${expected}, ${UNTRIMMED}`, {
    secret: true,
  })

const UNTRIMMED = 'without spaces or line breaks at either end'

/**
 * The rule of each signing variable, in both forms (the token backend's configuration table
 * reads them by these rules too).
 */
export const SIGNING_RULES = {
  CLIENT_ID: textRule(
    (text) => (/^\d{1,20}$/.test(text) ? text : undefined),
    'must be the numeric account ID',
  ),
  SECRET_KEY: secretRule('must be set'),
  CDN_DOMAIN: host,
  CDN_DOMAIN_IP: host,
  CDN_SCHEME: scheme,
  MAX_EXPIRE_SECONDS: wholeNumberRule(1, 2 ** 31, 'must be a positive whole number of seconds'),
} as const satisfies { [K in SigningVariable]: SettingRule<unknown> }

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
  return readVariable<string | number>(env, variable, SIGNING_RULES[variable], options)
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
