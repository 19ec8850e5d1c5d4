/**
 * The one table of the backend's settings: each variable's rule, default, where it goes in the
 * configuration object, and what the documentation says of it. The environment reader, the
 * object validator, `proj-token-backend --config` and docs/configuration.md all come from it.
 */
import { parseIpRanges } from '@proj/signing'
import {
  CDN_RULES,
  cdnVariables,
  type SettingRule,
  SIGNING_RULES,
  textRule,
  wholeNumberRule,
} from '@proj/signing/config'
import { AUTH_VARIABLES } from './auth-variables.ts'
import { booleanRule, isOrigin, isUrlOf, listRule } from './rules.ts'
import { SESSION_VARIABLES } from './session-variables.ts'
import { STREAM_VARIABLES } from './stream-variables.ts'
import { spec, type VariableDoc } from './variable-spec.ts'

export { ASYMMETRIC, SYMMETRIC } from './auth-variables.ts'
export { SESSION_DEFAULTS } from './session-variables.ts'
export type { VariableDoc, VariableSection, VariableSpec } from './variable-spec.ts'

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** Every variable the backend reads, but those of each further CDN ({@link CDN_VARIABLES}). */
export const CONFIG_VARIABLES = {
  CLIENT_ID: spec({
    field: 'signing.clientId',
    rule: SIGNING_RULES.CLIENT_ID,
    doc: {
      section: 'token',
      required: 'yes',
      about: 'numeric account ID, the `{client_id}` of URLs and tokens',
    },
  }),
  SECRET_KEY: spec({
    field: 'signing.secretKey',
    rule: SIGNING_RULES.SECRET_KEY,
    doc: {
      section: 'token',
      required: 'yes',
      about: 'the CDN resource secret; never logged, never sent',
    },
  }),
  CDN_DOMAIN: spec({
    field: 'signing.cdnDomain',
    rule: SIGNING_RULES.CDN_DOMAIN,
    doc: { section: 'token', required: 'yes', about: 'host[:port] for plain-token URLs (`url`)' },
  }),
  CDN_DOMAIN_IP: spec({
    field: 'signing.cdnDomainIp',
    rule: SIGNING_RULES.CDN_DOMAIN_IP,
    doc: { section: 'token', required: 'yes', about: 'host[:port] for IP-bound URLs (`url_ip`)' },
  }),
  CDN_SCHEME: spec<'https' | 'http'>({
    field: 'signing.scheme',
    rule: SIGNING_RULES.CDN_SCHEME,
    default: 'https',
    doc: { section: 'token', about: '`http` only for a local CDN emulator' },
  }),
  MAX_EXPIRE_SECONDS: spec({
    field: 'signing.maxLifetimeSeconds',
    rule: SIGNING_RULES.MAX_EXPIRE_SECONDS,
    doc: {
      section: 'token',
      unset: 'unset: no cap (as in the spec)',
      about:
        "caps every token's lifetime, including absolute `expire` timestamps and the 3600 s default",
    },
  }),
  IP_HEADERS: spec({
    field: 'ipHeaders',
    rule: listRule(
      (text) => (HEADER_NAME.test(text) ? text.toLowerCase() : undefined),
      'must be a comma-separated list of header names',
    ),
    doc: {
      section: 'token',
      unset: "unset: the connection's own address",
      about:
        "headers that carry the viewer's address, read in order, first entry of each (spec 4.14's `x-real-ip,x-forwarded-for`). **Only behind a proxy that overwrites them**: any caller can write them. Not with `TRUSTED_PROXIES`",
    },
  }),
  TRUSTED_PROXIES: spec({
    field: 'trustedProxies',
    rule: listRule(
      (text) => ('ranges' in parseIpRanges([text]) ? text : undefined),
      'must be a comma-separated list of addresses or CIDR ranges such as 10.0.0.0/8, 127.0.0.1 (the proxies in front of the backend)',
    ),
    doc: {
      section: 'token',
      unset: 'unset: no proxy trusted',
      about:
        'the proxies in front of the backend, as addresses or CIDR ranges (`10.0.0.0/8,127.0.0.1`): from one of them, the viewer is the right-most `X-Forwarded-For` entry that is not one ([Behind a proxy](deploying.md#behind-a-proxy))',
    },
  }),
  ALLOWED_ORIGINS: spec<'*' | string[]>({
    field: 'allowedOrigins',
    rule: (() => {
      const origins = listRule((text) => (isOrigin(text) ? text : undefined), '')
      return {
        text: (text) => (text === '*' ? '*' : origins.text(text)),
        value: (value) => (value === '*' ? '*' : origins.value(value)),
        expected:
          'must be "*" or a comma-separated list of origins such as https://player.example.com',
      }
    })(),
    doc: {
      section: 'token',
      unset: 'unset: no CORS headers',
      about:
        'comma-separated origins allowed to call `/token` from a browser (`https://player.example.com`), or `*` (local default only)',
    },
  }),
  ...AUTH_VARIABLES,
  RATE_LIMIT_REQUESTS: spec({
    field: 'rateLimit.requests',
    rule: wholeNumberRule(
      1,
      999_999_999,
      'must be a whole number of requests per viewer and period, 1 or more',
    ),
    doc: {
      section: 'token',
      unset: 'unset: no limit',
      about:
        'token and session requests per viewer and period. Node: in the process, or in Redis for every instance with `REDIS_URL`; Workers: the `TOKEN_RATE_LIMITER` binding `wrangler.jsonc` declares decides ([Rate limiting](authorization.md#rate-limiting)), else one isolate',
    },
  }),
  RATE_LIMIT_PERIOD: spec<10 | 60>({
    field: 'rateLimit.periodSeconds',
    rule: {
      text: (text) => (text === '10' ? 10 : text === '60' ? 60 : undefined),
      value: (value) => (value === 10 || value === 60 ? value : undefined),
      expected: 'must be 10 or 60 (seconds, the periods of the Workers Rate Limiting binding)',
    },
    default: 60,
    doc: {
      section: 'token',
      about:
        "`10` or `60` seconds (the Workers binding's periods); with the binding, set it to the binding's `period` (it is the `Retry-After`)",
    },
  }),
  REDIS_URL: spec({
    field: 'redis.url',
    rule: textRule(
      (text) => (isUrlOf(text, ['redis:', 'rediss:']) ? text : undefined),
      'must be a redis:// or rediss:// URL such as redis://redis.internal:6379/0',
      { secret: true },
    ),
    doc: {
      section: 'token',
      unset: 'unset: memory, per process',
      about:
        'Node only: `redis://[user:password@]host:6379/0` or `rediss://`; sessions and rate limits shared by every instance ([Scaling out on Node](deploying.md#scaling-out-on-node))',
    },
  }),
  REDIS_CLUSTER: spec({
    field: 'redis.cluster',
    rule: booleanRule('must be "true" (REDIS_URL is a node of a Redis Cluster) or "false"'),
    default: false,
    doc: {
      section: 'token',
      about:
        '`true`: `REDIS_URL` names one node of a Redis Cluster (or its configuration endpoint), the others are discovered; database 0 only ([One Redis or a cluster](deploying.md#one-redis-or-a-cluster))',
    },
  }),
  CDN_ID: spec({
    field: 'primaryCdn.id',
    rule: CDN_RULES.id,
    default: 'primary',
    doc: { section: 'cdns', about: "the primary CDN's id" },
  }),
  CDN_PRIORITY: spec({
    field: 'primaryCdn.priority',
    rule: CDN_RULES.priority,
    default: 0,
    doc: { section: 'cdns', about: "the primary CDN's priority (0–999, lower is preferred)" },
  }),
  CDNS: spec<string[]>({
    field: 'cdns',
    // the ids; each CDN's own variables are CDN_VARIABLES
    rule: listRule((text) => text, 'must list CDN ids'),
    doc: {
      section: 'cdns',
      unset: 'unset: the primary alone',
      about: 'comma-separated ids of further CDNs: 1–32 of `a-z 0-9 -` (`b,eu-west`)',
    },
  }),
  ...SESSION_VARIABLES,
  ...STREAM_VARIABLES,
} as const

/** Every variable the backend reads (but those of each further CDN). */
export type ConfigVariable = keyof typeof CONFIG_VARIABLES

/** What the rule of `K` reads. */
export type VariableValue<K extends ConfigVariable> =
  (typeof CONFIG_VARIABLES)[K]['rule'] extends SettingRule<infer T> ? T : never

/** The keys of a further CDN's variables, as in `cdns[i]` of the object. */
export type CdnKey = keyof ReturnType<typeof cdnVariables>

/** The variables of each CDN listed in `CDNS`; `<ID>` is the id in upper case, `-` as `_`. */
export const CDN_VARIABLES = {
  cdnDomain: {
    doc: {
      section: 'cdns',
      required: 'per listed CDN',
      about: 'its host[:port] for plain-token URLs',
    },
  },
  cdnDomainIp: {
    doc: {
      section: 'cdns',
      required: 'per listed CDN',
      about: 'its host[:port] for IP-bound URLs',
    },
  },
  scheme: {
    default: 'https',
    doc: { section: 'cdns', about: '`http` only for a local CDN emulator' },
  },
  priority: {
    doc: {
      section: 'cdns',
      unset: 'its place in `CDNS` (1, 2, …)',
      about: '0–999, lower is preferred',
    },
  },
  secretKey: {
    doc: {
      section: 'cdns',
      required: 'per listed CDN',
      about: "that CDN's resource secret: `wrangler secret put SECRET_KEY_B`",
    },
  },
} as const satisfies Record<CdnKey, { default?: string; doc: VariableDoc }>

const CDN_VARIABLE = new RegExp(
  `^(?:${Object.values(cdnVariables('ID'))
    .map((name) => name.replace('ID', '[A-Z0-9_]+'))
    .join('|')})$`,
)

/**
 * Whether `name` is the variable of some further CDN (`CDN_B_DOMAIN`, `SECRET_KEY_EU_WEST`).
 *
 * @example
 * ```ts
 * isCdnVariable('CDN_EU_WEST_DOMAIN_IP') // true
 * isCdnVariable('CDN_DOMAIN')            // false
 * ```
 */
export function isCdnVariable(name: string): boolean {
  return CDN_VARIABLE.test(name)
}
