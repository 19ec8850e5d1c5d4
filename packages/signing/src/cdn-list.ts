/**
 * The CDN list of a configuration (`@proj/signing/config`): the primary CDN's id and priority,
 * the further CDNs of `CDNS` with their own variables, and the rules that keep one CDN's token
 * from reaching another, whichever form (variables or an object) the list came in.
 */
import type { CdnSignerFactory } from './cdn-signer.ts'
import type { SigningConfig } from './record.ts'
import {
  ConfigError,
  type Naming,
  readVariable,
  SIGNING_RULES,
  secretRule,
  textRule,
  wholeNumberRule,
} from './signing-config.ts'

/** The variables that name the primary CDN and list the others (all optional). */
export type CdnListVariable = 'CDN_ID' | 'CDN_PRIORITY' | 'CDNS'

/** An environment with the CDN variables: the fixed ones and those of each listed CDN. */
export type CdnEnv = Readonly<Record<string, string | undefined>>

/** The id of the CDN that `CDN_DOMAIN` and `SECRET_KEY` describe when `CDN_ID` is unset. */
export const DEFAULT_CDN_ID = 'primary'

/** A CDN id: short, lower case, usable in a variable name (`eu-west` → `CDN_EU_WEST_DOMAIN`). */
const CDN_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/

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

/** The rules of the CDN list's variables: the primary's id and priority, and each listed CDN's. */
export const CDN_RULES = {
  id: textRule(
    (text) => (isCdnId(text) ? text : undefined),
    'must be 1 to 32 characters from a-z, 0-9 and - (not at either end)',
  ),
  priority: wholeNumberRule(0, 999, 'must be a whole number from 0 to 999 (lower is preferred)'),
  cdnDomain: SIGNING_RULES.CDN_DOMAIN,
  cdnDomainIp: SIGNING_RULES.CDN_DOMAIN_IP,
  scheme: SIGNING_RULES.CDN_SCHEME,
  /** `id`'s own secret. */
  secretKey: (id: string) => secretRule(`must be set: CDN "${id}"'s own secret`),
} as const

/**
 * Refuses an id listed twice, or the primary's id listed again.
 *
 * @throws {ConfigError} naming the list (`CDNS`, or the object's field through `name`).
 * @example
 * ```ts
 * checkCdnIds('primary', ['b', 'c'])
 * ```
 */
export function checkCdnIds(
  primaryId: string,
  ids: readonly string[],
  name: Naming = (variable) => variable,
): void {
  const seen = new Map([[primaryId, 'CDN_ID']])
  for (const id of ids) {
    const twice = seen.get(id)
    if (twice !== undefined)
      throw new ConfigError(
        name('CDNS'),
        `lists "${id}" twice (${name(twice)} names it too): each CDN needs its own id`,
      )
    seen.set(id, 'CDNS')
  }
}

/** A listed CDN as the clash rules see it: `prioritySet` tells a given priority from a default. */
export type ListedCdn = Omit<CdnConfig, 'scheme' | 'signer'> & { prioritySet: boolean }

/**
 * The rules that keep one CDN's token from reaching another, over a validated primary and list
 * (ids checked by {@link checkCdnIds}): no secret used by two CDNs, no host shared by two CDNs, no priority shared (their
 * order would be a guess). Each check names the variable that introduced the clash (the later
 * one), through `name` (the variables' own names by default, an object's fields otherwise).
 *
 * @throws {ConfigError} naming the variables, never a secret's value.
 * @example
 * ```ts
 * checkCdnList(signing, { id: 'primary', priority: 0 }, [cdnB])
 * ```
 */
export function checkCdnList(
  signing: SigningConfig,
  primary: PrimaryCdnConfig,
  cdns: readonly ListedCdn[],
  name: Naming = (variable) => variable,
): void {
  const seen = {
    secrets: new Map([[signing.secretKey, 'SECRET_KEY']]),
    hosts: new Map([
      [signing.cdnDomain.toLowerCase(), 'CDN_DOMAIN'],
      [signing.cdnDomainIp.toLowerCase(), 'CDN_DOMAIN_IP'],
    ]),
    priorities: new Map([[primary.priority, 'CDN_PRIORITY']]),
  }
  const fail = (variable: string, expected: string): never => {
    throw new ConfigError(name(variable), expected)
  }
  cdns.forEach((cdn, index) => {
    const names = cdnVariables(cdn.id)
    const other = seen.secrets.get(cdn.secretKey)
    if (other !== undefined)
      fail(
        names.secretKey,
        `must differ from ${name(other)}: each CDN has its own secret, so a token for one is refused by the others`,
      )
    seen.secrets.set(cdn.secretKey, names.secretKey)
    for (const key of ['cdnDomain', 'cdnDomainIp'] as const) {
      const owner = seen.hosts.get(cdn[key].toLowerCase())
      // a CDN may serve both kinds of URL on one host; two CDNs may not share one
      if (owner !== undefined && owner !== names.cdnDomain)
        fail(names[key], `is also ${name(owner)}: each CDN needs hosts of its own`)
      seen.hosts.set(cdn[key].toLowerCase(), names[key])
    }
    const tied = seen.priorities.get(cdn.priority)
    if (tied !== undefined)
      fail(
        names.priority,
        `${cdn.prioritySet ? 'must differ from' : `is unset, so ${index + 1} (the CDN's place in ${name('CDNS')}), the same as`} ${name(tied)} (${cdn.priority}): two CDNs cannot share a priority`,
      )
    seen.priorities.set(cdn.priority, names.priority)
  })
}

/**
 * Reads the CDN list next to a validated {@link SigningConfig} (the primary CDN): `CDN_ID`
 * (default `primary`) and `CDN_PRIORITY` (default 0) name the primary; `CDNS` lists further ids,
 * each with its own variables ({@link cdnVariables}), checked by {@link checkCdnList}.
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
    id: readVariable(env, 'CDN_ID', CDN_RULES.id) ?? DEFAULT_CDN_ID,
    priority: readVariable(env, 'CDN_PRIORITY', CDN_RULES.priority) ?? 0,
  }
  const ids = cdnIds(env.CDNS)
  checkCdnIds(primary.id, ids)
  const required = { required: true }
  const listed = ids.map((id, index) => {
    const names = cdnVariables(id)
    const priority = readVariable(env, names.priority, CDN_RULES.priority)
    return {
      id,
      priority: priority ?? index + 1,
      prioritySet: priority !== undefined,
      secretKey: readVariable(env, names.secretKey, CDN_RULES.secretKey(id), required) as string,
      cdnDomain: readVariable(env, names.cdnDomain, CDN_RULES.cdnDomain, required) as string,
      cdnDomainIp: readVariable(env, names.cdnDomainIp, CDN_RULES.cdnDomainIp, required) as string,
      scheme: readVariable(env, names.scheme, CDN_RULES.scheme) ?? 'https',
    }
  })
  checkCdnList(signing, primary, listed)
  return { primary, cdns: listed.map(({ prioritySet: _, ...cdn }) => cdn) }
}

/**
 * The ids `CDNS` lists (comma-separated, blanks ignored), each a valid CDN id.
 *
 * @throws {ConfigError} naming `CDNS` for one that is not an id.
 * @example
 * ```ts
 * cdnIds(' b , eu-west ') // ['b', 'eu-west']
 * ```
 */
export function cdnIds(list: string | undefined): string[] {
  const ids = (list ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean)
  for (const id of ids)
    if (!isCdnId(id))
      throw new ConfigError(
        'CDNS',
        `lists "${id}", which is not a CDN id: ids ${CDN_RULES.id.expected}`,
      )
  return ids
}
