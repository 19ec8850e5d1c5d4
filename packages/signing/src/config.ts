/**
 * The signing half of a deployment's configuration (spec 4.14): the variables every signer
 * reads (the token worker, `proj-sign`, the CDN emulator), validated in one place. A separate
 * entry (`@proj/signing/config`), so player bundles never see it.
 */
import type { CdnSignerFactory } from './cdn-signer.ts'
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

/** The variables that name the primary CDN and list the others (all optional). */
export type CdnListVariable = 'CDN_ID' | 'CDN_PRIORITY' | 'CDNS'

/** An environment with the CDN variables: the fixed ones and those of each listed CDN. */
export type CdnEnv = Readonly<Record<string, string | undefined>>

/** The id of the CDN that `CDN_DOMAIN` and `SECRET_KEY` describe when `CDN_ID` is unset. */
export const DEFAULT_CDN_ID = 'primary'

/** A CDN id: short, lower case, usable in a variable name (`eu-west` → `CDN_EU_WEST_DOMAIN`). */
const CDN_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/
const ID_RULE = 'must be 1 to 32 characters from a-z, 0-9 and - (not at either end)'
const PRIORITY_RULE = 'must be a whole number from 0 to 999 (lower is preferred)'

/** The primary CDN's id and priority (`CDN_ID`, `CDN_PRIORITY`); its hosts and secret are {@link SigningConfig}'s. */
export interface PrimaryCdnConfig {
  id: string
  priority: number
  /** Object form only: signs for this CDN instead of `secure_link`. */
  signer?: CdnSignerFactory | undefined
}

/** A further CDN (listed in `CDNS`), validated. */
export interface CdnConfig {
  id: string
  /** Lower is preferred; default its place in the list (the primary is 0, `CDNS`' first 1, …). */
  priority: number
  /** Its own secret (`SECRET_KEY_<ID>`), never another CDN's. */
  secretKey: string
  cdnDomain: string
  cdnDomainIp: string
  scheme: 'https' | 'http'
  /** Object form only: signs for this CDN instead of `secure_link`. */
  signer?: CdnSignerFactory | undefined
}

/**
 * The variables of one further CDN: `CDN_<ID>_DOMAIN`, `CDN_<ID>_DOMAIN_IP`, `CDN_<ID>_SCHEME`,
 * `CDN_<ID>_PRIORITY` and the secret `SECRET_KEY_<ID>`, `<ID>` the id in upper case with `-` as `_`.
 *
 * @example
 * ```ts
 * cdnVariables('eu-west').secretKey // 'SECRET_KEY_EU_WEST'
 * ```
 */
export function cdnVariables(id: string) {
  const name = id.toUpperCase().replace(/-/g, '_')
  return {
    cdnDomain: `CDN_${name}_DOMAIN`,
    cdnDomainIp: `CDN_${name}_DOMAIN_IP`,
    scheme: `CDN_${name}_SCHEME`,
    priority: `CDN_${name}_PRIORITY`,
    secretKey: `SECRET_KEY_${name}`,
  } as const
}

/**
 * Whether `id` is a valid CDN id (1 to 32 of `a-z 0-9 -`, no `-` at either end).
 *
 * @example
 * ```ts
 * isCdnId('eu-west') // true
 * isCdnId('B')       // false
 * ```
 */
export function isCdnId(id: string): boolean {
  return CDN_ID.test(id)
}

const ID: VariableRule<string> = [(text) => (isCdnId(text) ? text : undefined), ID_RULE]
const PRIORITY: VariableRule<number> = [
  (text) => (/^\d{1,3}$/.test(text) ? Number(text) : undefined),
  PRIORITY_RULE,
]
const HOST_OF: VariableRule<string> = [(text) => (isHost(text) ? text : undefined), HOST_RULE]

/**
 * Reads the CDN list next to a validated {@link SigningConfig} (the primary CDN): `CDN_ID`
 * (default `primary`) and `CDN_PRIORITY` (default 0) name the primary; `CDNS` lists further ids,
 * each with its own variables ({@link cdnVariables}). Refuses what would let one CDN's token reach
 * another: a repeated id, a secret used by two CDNs, a host shared by two CDNs, and two CDNs with
 * the same priority (their order would be a guess).
 *
 * @throws {ConfigError} naming the variable, never a secret's value.
 * @example
 * ```ts
 * const signing = parseSigningConfig(process.env)
 * const { primary, cdns } = parseCdnList(process.env, signing)
 * // CDNS=b, CDN_B_DOMAIN=…, CDN_B_DOMAIN_IP=…, SECRET_KEY_B=… → cdns[0].id === 'b'
 * ```
 */
export function parseCdnList(
  env: CdnEnv,
  signing: SigningConfig,
): { primary: PrimaryCdnConfig; cdns: CdnConfig[] } {
  const primary = {
    id: readVariable(env, 'CDN_ID', ID) ?? DEFAULT_CDN_ID,
    priority: readVariable(env, 'CDN_PRIORITY', PRIORITY) ?? 0,
  }
  const ids = (env.CDNS ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean)
  // each check names the variable that introduced the clash (the later one)
  const seen = {
    ids: new Map([[primary.id, 'CDN_ID']]),
    secrets: new Map([[signing.secretKey, 'SECRET_KEY']]),
    hosts: new Map([
      [signing.cdnDomain.toLowerCase(), 'CDN_DOMAIN'],
      [signing.cdnDomainIp.toLowerCase(), 'CDN_DOMAIN_IP'],
    ]),
    priorities: new Map([[primary.priority, 'CDN_PRIORITY']]),
  }
  const cdns = ids.map((id, index): CdnConfig => {
    if (!isCdnId(id))
      throw new ConfigError('CDNS', `lists "${id}", which is not a CDN id: ids ${ID_RULE}`)
    if (seen.ids.has(id))
      throw new ConfigError(
        'CDNS',
        `lists "${id}" twice (${seen.ids.get(id)} names it too): each CDN needs its own id`,
      )
    seen.ids.set(id, 'CDNS')
    const names = cdnVariables(id)
    const required = { required: true }
    const secretKey = readVariable(
      env,
      names.secretKey,
      [
        (text) => text,
        `must be set: CDN "${id}"'s own secret (wrangler secret put ${names.secretKey})`,
      ],
      required,
    ) as string
    const other = seen.secrets.get(secretKey)
    if (other !== undefined)
      throw new ConfigError(
        names.secretKey,
        `must differ from ${other}: each CDN has its own secret, so a token for one is refused by the others`,
      )
    seen.secrets.set(secretKey, names.secretKey)
    const cdnDomain = readVariable(env, names.cdnDomain, HOST_OF, required) as string
    const cdnDomainIp = readVariable(env, names.cdnDomainIp, HOST_OF, required) as string
    for (const [variable, host] of [
      [names.cdnDomain, cdnDomain],
      [names.cdnDomainIp, cdnDomainIp],
    ] as const) {
      const owner = seen.hosts.get(host.toLowerCase())
      // a CDN may serve both kinds of URL on one host; two CDNs may not share one
      if (owner !== undefined && owner !== names.cdnDomain)
        throw new ConfigError(variable, `is also ${owner}: each CDN needs hosts of its own`)
      seen.hosts.set(host.toLowerCase(), variable)
    }
    const scheme = (readVariable(env, names.scheme, RULES.CDN_SCHEME as VariableRule<string>) ??
      'https') as 'https' | 'http'
    const priority = readVariable(env, names.priority, PRIORITY) ?? index + 1
    const tied = seen.priorities.get(priority)
    if (tied !== undefined)
      throw new ConfigError(
        names.priority,
        `${env[names.priority] ? 'must differ from' : `is unset, so ${index + 1} (the CDN's place in CDNS), the same as`} ${tied} (${priority}): two CDNs cannot share a priority`,
      )
    seen.priorities.set(priority, names.priority)
    return { id, priority, secretKey, cdnDomain, cdnDomainIp, scheme }
  })
  return { primary, cdns }
}
