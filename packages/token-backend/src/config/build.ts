/**
 * The configuration built from either form (`sources.ts`), variable by variable through the
 * table (`variables.ts`), with the rules that tie settings together: placeholders, the CDN list,
 * the JWT choices, a session secret that is no CDN's.
 */
import type { SigningConfig } from '@proj/signing'
import {
  CDN_RULES,
  type CdnConfig,
  cdnVariables,
  checkCdnIds,
  checkCdnList,
  type ListedCdn,
  type SettingRule,
} from '@proj/signing/config'
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws'
import type { StreamSettings } from '../streams/stream-settings.ts'
import type { SettingSource } from './sources.ts'
import type {
  AuthConfig,
  ConfigOptions,
  RedisConfig,
  SessionConfig,
  TokenBackendConfig,
} from './types.ts'
import {
  ASYMMETRIC,
  CDN_VARIABLES,
  CONFIG_VARIABLES,
  type ConfigVariable,
  SYMMETRIC,
  type VariableValue,
} from './variables.ts'

/** Reads the table's variables from one source, with their defaults. */
function reader(source: SettingSource) {
  function read<K extends ConfigVariable>(
    variable: K,
    required: true,
  ): NonNullable<VariableValue<K>>
  function read<K extends ConfigVariable>(
    variable: K,
  ): (typeof CONFIG_VARIABLES)[K] extends { readonly default: unknown }
    ? VariableValue<K>
    : VariableValue<K> | undefined
  function read(variable: ConfigVariable, required = false): unknown {
    const spec = CONFIG_VARIABLES[variable]
    const value = source.read(variable, spec.rule as SettingRule<unknown>, required)
    return value === undefined && 'default' in spec ? spec.default : value
  }
  return read
}
type Read = ReturnType<typeof reader>

/**
 * The names reserved for documentation (RFC 2606: `example.com`, `.net`, `.org` and their
 * subdomains, the `.example` TLD): the shipped wrangler.jsonc's are `cdn.example.com`.
 */
const PLACEHOLDER_HOST = /(?:^|\.)example(?:\.com|\.net|\.org)?\.?(?::\d+)?$/i

/**
 * An unedited deployment must not sign anything: URLs for `cdn.example.com` would carry valid
 * tokens for your account to a host that is not your CDN.
 */
function refusePlaceholder(source: SettingSource, variable: string, host: string): void {
  if (PLACEHOLDER_HOST.test(host))
    throw source.error(
      variable,
      `is still the placeholder ${host}: set it to your CDN's host name`,
      'wrangler.jsonc "vars", .dev.vars or the environment',
    )
}

function readSigning(source: SettingSource, read: Read): SigningConfig {
  const maxLifetimeSeconds = read('MAX_EXPIRE_SECONDS')
  const signing = {
    clientId: read('CLIENT_ID', true),
    secretKey: read('SECRET_KEY', true),
    cdnDomain: read('CDN_DOMAIN', true),
    cdnDomainIp: read('CDN_DOMAIN_IP', true),
    scheme: read('CDN_SCHEME'),
    ...(maxLifetimeSeconds !== undefined && { maxLifetimeSeconds }),
  }
  refusePlaceholder(source, 'CDN_DOMAIN', signing.cdnDomain)
  refusePlaceholder(source, 'CDN_DOMAIN_IP', signing.cdnDomainIp)
  return signing
}

/** The primary CDN as named (`undefined` when nothing names it) and the further CDNs. */
function readCdns(source: SettingSource, read: Read, signing: SigningConfig) {
  const primary = { id: read('CDN_ID'), priority: read('CDN_PRIORITY') }
  const ids = source.cdnIds()
  checkCdnIds(primary.id, ids, source.name)
  const listed = ids.map((id, index): ListedCdn & CdnConfig => {
    const names = cdnVariables(id)
    const priority = source.read(names.priority, CDN_RULES.priority)
    const signer = source.signerOf(id)
    const cdn = {
      id,
      priority: priority ?? index + 1,
      prioritySet: priority !== undefined,
      secretKey: source.read(names.secretKey, CDN_RULES.secretKey(id), true) as string,
      cdnDomain: source.read(names.cdnDomain, CDN_RULES.cdnDomain, true) as string,
      cdnDomainIp: source.read(names.cdnDomainIp, CDN_RULES.cdnDomainIp, true) as string,
      scheme: source.read(names.scheme, CDN_RULES.scheme) ?? CDN_VARIABLES.scheme.default,
      ...(signer && { signer }),
    }
    refusePlaceholder(source, names.cdnDomain, cdn.cdnDomain)
    refusePlaceholder(source, names.cdnDomainIp, cdn.cdnDomainIp)
    return cdn
  })
  checkCdnList(signing, primary, listed, source.name)
  const signer = source.signerOf(undefined)
  const named =
    listed.length > 0 || source.isSet('CDN_ID') || source.isSet('CDN_PRIORITY') || signer
  return {
    primaryCdn: named ? { ...primary, ...(signer && { signer }) } : undefined,
    cdns:
      listed.length > 0 ? listed.map(({ prioritySet: _, ...cdn }): CdnConfig => cdn) : undefined,
  }
}

const isSymmetric = (alg: string): alg is (typeof SYMMETRIC)[number] =>
  (SYMMETRIC as readonly string[]).includes(alg)

/**
 * The built-in check; `undefined` when `AUTH_MODE` is unset and the app has its own authorizer
 * (the JWT settings then configure nothing, as under `none`). Set, it is validated all the same.
 */
function readAuth(source: SettingSource, read: Read, customAuthorizer: boolean) {
  if (customAuthorizer && !source.isSet('AUTH_MODE')) return undefined
  if (read('AUTH_MODE', true) === 'none') return { mode: 'none' } satisfies AuthConfig
  const key = read('JWT_SECRET')
  const algs = read('JWT_ALG')
  const url = read('JWT_JWKS_URL')
  const keys = read('JWT_JWKS') as HonoJsonWebKey[] | undefined
  const issuer = read('JWT_ISSUER')
  const audience = read('JWT_AUDIENCE')
  const { name } = source
  if (key === undefined && url === undefined && keys === undefined)
    throw source.error(
      'JWT_SECRET',
      `or ${name('JWT_JWKS_URL')} or ${name('JWT_JWKS')} is required when ${name('AUTH_MODE')} is "jwt"`,
    )
  if (key !== undefined && (url !== undefined || keys !== undefined))
    throw source.error(
      'JWT_SECRET',
      `cannot be combined with ${name('JWT_JWKS_URL')} or ${name('JWT_JWKS')}: choose one`,
    )
  const [alg, ...more] = algs ?? []
  if (key !== undefined && alg !== undefined && (more.length > 0 || !isSymmetric(alg)))
    throw source.error('JWT_ALG', `must be ${SYMMETRIC.join(', ')} with ${name('JWT_SECRET')}`)
  if (key === undefined && algs?.some(isSymmetric))
    throw source.error('JWT_ALG', 'must be an asymmetric algorithm with a JWKS')
  return {
    mode: 'jwt',
    ...(key !== undefined && { secret: { key, alg: alg && isSymmetric(alg) ? alg : 'HS256' } }),
    ...((url !== undefined || keys !== undefined) && {
      jwks: {
        ...(url !== undefined && { url }),
        ...(keys !== undefined && { keys }),
        algs: algs === undefined ? [...ASYMMETRIC] : (algs as (typeof ASYMMETRIC)[number][]),
      },
    }),
    videosClaim: read('JWT_VIDEOS_CLAIM'),
    ...(issuer !== undefined && { issuer }),
    ...(audience !== undefined && { audience }),
    requireExp: read('JWT_REQUIRE_EXP'),
  } satisfies AuthConfig
}

function readSession(
  source: SettingSource,
  read: Read,
  cdnSecrets: readonly (readonly [variable: string, secret: string])[],
): SessionConfig | undefined {
  // every SESSION_* is read (and so checked) with or without a secret: the networks and the
  // admin token serve stream limits and the operator API too, and a bad value is never ignored
  const settings = {
    lifetimeSeconds: read('SESSION_LIFETIME'),
    binding: read('SESSION_BINDING'),
    maxNetworks: read('SESSION_MAX_NETWORKS'),
    leafLifetimeSeconds: read('SESSION_LEAF_LIFETIME'),
    adminToken: read('SESSION_ADMIN_TOKEN'),
    baseUrl: read('SESSION_BASE_URL'),
  }
  const secret = read('SESSION_SECRET')
  if (secret === undefined) return undefined
  const shared = cdnSecrets.find(([, cdnSecret]) => cdnSecret === secret)
  if (shared !== undefined)
    throw source.error(
      'SESSION_SECRET',
      `must differ from ${source.name(shared[0])} (a session is not a CDN token)`,
    )
  return { secret, ...settings }
}

/** `REDIS_URL`, and `REDIS_CLUSTER` when it is a cluster's node (a cluster has no database but 0). */
function readRedis(source: SettingSource, read: Read): RedisConfig | undefined {
  const url = read('REDIS_URL')
  const cluster = read('REDIS_CLUSTER')
  if (url === undefined) {
    if (cluster)
      throw source.error(
        'REDIS_CLUSTER',
        `needs ${source.name('REDIS_URL')}: a node of the cluster`,
      )
    return undefined
  }
  const { pathname } = new URL(url)
  // node-redis takes the path as the database number: anything else fails only when it connects
  if (!/^\/?\d{0,5}$/.test(pathname))
    throw source.error(
      'REDIS_URL',
      'must name a database by its number (redis://host:6379/0), or none: the path is nothing else',
    )
  if (!cluster) return { url }
  if (!['', '/', '/0'].includes(pathname))
    throw source.error(
      'REDIS_URL',
      `must name database 0 with ${source.name('REDIS_CLUSTER')}: a Redis Cluster has no other`,
    )
  return { url, cluster }
}

/**
 * Stream limits, when `STREAM_LIMIT` is set: counted per viewer, so they need one (a JWT's `sub`
 * or your authorizer's); an address is not a viewer.
 */
function readStreams(
  source: SettingSource,
  read: Read,
  auth: AuthConfig | undefined,
  customAuthorizer: boolean,
): StreamSettings | undefined {
  const limit = read('STREAM_LIMIT')
  const settings = {
    policy: read('STREAM_LIMIT_POLICY'),
    mode: read('STREAM_LIMIT_MODE'),
    claim: read('STREAM_LIMIT_CLAIM'),
    graceSeconds: read('STREAM_GRACE'),
    sessionIdleSeconds: read('SESSION_STREAM_IDLE'),
  }
  if (limit === undefined) return undefined
  if (auth?.mode !== 'jwt' && !customAuthorizer)
    throw source.error(
      'STREAM_LIMIT',
      `needs a viewer identity: JWT or an authorizer (${source.name('AUTH_MODE')}=jwt, or your own authorize)`,
    )
  return { limit, ...settings }
}

/**
 * Validates a configuration from `source`, failing on the first bad setting, in the order the
 * variables have always been read.
 *
 * @throws {ConfigError} naming the variable or field, never its value.
 * @example
 * ```ts
 * const config = buildConfig(envSource(process.env), { customAuthorizer: false })
 * ```
 */
export function buildConfig(
  source: SettingSource,
  { customAuthorizer = false }: ConfigOptions = {},
): TokenBackendConfig {
  const read = reader(source)
  const signing = readSigning(source, read)
  const { primaryCdn, cdns } = readCdns(source, read, signing)
  const ipHeaders = read('IP_HEADERS')
  const trustedProxies = read('TRUSTED_PROXIES')
  if (ipHeaders !== undefined && trustedProxies !== undefined)
    throw source.error(
      'IP_HEADERS',
      `cannot be combined with ${source.name('TRUSTED_PROXIES')}: choose one (${source.name('TRUSTED_PROXIES')} reads X-Forwarded-For from the proxies it lists; ${source.name('IP_HEADERS')} trusts its headers from anyone)`,
    )
  const config = {
    signing,
    primaryCdn,
    cdns,
    ipHeaders,
    trustedProxies,
    allowedOrigins: read('ALLOWED_ORIGINS'),
    auth: readAuth(source, read, customAuthorizer),
    rateLimit: { requests: read('RATE_LIMIT_REQUESTS'), periodSeconds: read('RATE_LIMIT_PERIOD') },
    session: readSession(source, read, [
      ['SECRET_KEY', signing.secretKey],
      ...(cdns ?? []).map((cdn) => [cdnVariables(cdn.id).secretKey, cdn.secretKey] as const),
    ]),
    networks: { binding: read('SESSION_BINDING'), maxNetworks: read('SESSION_MAX_NETWORKS') },
    adminToken: read('SESSION_ADMIN_TOKEN'),
    redis: readRedis(source, read),
  }
  return { ...config, streams: readStreams(source, read, config.auth, customAuthorizer) }
}
