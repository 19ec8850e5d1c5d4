/**
 * The backend's configuration: one table of variables (`config/variables.ts`) read from an
 * environment (`configFromEnv`) or validated as an object (`tokenConfig`), both through the same
 * builder (`config/build.ts`), each error naming what the user wrote.
 */
import { perEnvironment } from '@proj/signing/config'
import { buildConfig } from './config/build.ts'
import { envSource, objectSource } from './config/sources.ts'
import type {
  AuthConfig,
  ConfigOptions,
  CustomAuthorizerConfigInput,
  TokenBackendConfig,
  TokenBackendEnv,
  TokenConfigInput,
} from './config/types.ts'

export { type CdnConfig, ConfigError, type PrimaryCdnConfig } from '@proj/signing/config'
export type {
  AuthConfig,
  AuthConfigInput,
  CdnInput,
  CdnVariable,
  ConfigOptions,
  CustomAuthorizerConfigInput,
  RedisConfig,
  SessionBinding,
  SessionConfig,
  TokenBackendConfig,
  TokenBackendEnv,
  TokenConfigInput,
} from './config/types.ts'
export {
  CDN_VARIABLES,
  CONFIG_VARIABLES,
  type ConfigVariable,
  isCdnVariable,
  SESSION_DEFAULTS,
} from './config/variables.ts'

/** @deprecated Renamed {@link TokenBackendConfig}; this alias goes in the next major version. */
export type TokenWorkerConfig<Auth extends AuthConfig | undefined = AuthConfig | undefined> =
  TokenBackendConfig<Auth>
/** @deprecated Renamed {@link TokenBackendEnv}; this alias goes in the next major version. */
export type TokenWorkerEnv = TokenBackendEnv

/**
 * Validates the environment into a typed configuration, failing on the first bad variable. A CDN
 * host still at the `example.com` placeholder is refused: deployed unedited, nothing is signed;
 * so is an unset `AUTH_MODE` (`none`, anyone may get tokens, is a choice to name), unless the
 * app has its own authorizer (`customAuthorizer`).
 *
 * @throws {ConfigError} naming the variable (never its value).
 * @example
 * ```ts
 * const config = configFromEnv({ CLIENT_ID: '12345', SECRET_KEY: '…', CDN_DOMAIN: 'cdn.mysite.net',
 *   CDN_DOMAIN_IP: 'cdn-ip.mysite.net', AUTH_MODE: 'jwt', JWT_SECRET: '…' })
 * config.ipHeaders // undefined: the connection's own address
 * ```
 */
export function configFromEnv(env: TokenBackendEnv): TokenBackendConfig<AuthConfig>
export function configFromEnv(env: TokenBackendEnv, options: ConfigOptions): TokenBackendConfig
export function configFromEnv(
  env: TokenBackendEnv,
  options: ConfigOptions = {},
): TokenBackendConfig {
  return buildConfig(envSource(env), options)
}

// one memo per way of reading: the same env object reads differently with an authorizer
const strictConfig = perEnvironment((env: TokenBackendEnv) => configFromEnv(env))
const customAuthorizerConfig = perEnvironment((env: TokenBackendEnv) =>
  configFromEnv(env, { customAuthorizer: true }),
)

/**
 * {@link configFromEnv}, memoised per environment object: Workers pass the same `env` to every
 * request of an isolate, so the work is done once.
 *
 * @example
 * ```ts
 * app.use(async (c, next) => { c.set('tokenConfig', loadConfig(c.env)); await next() })
 * ```
 */
export function loadConfig(env: TokenBackendEnv): TokenBackendConfig<AuthConfig>
export function loadConfig(env: TokenBackendEnv, options: ConfigOptions): TokenBackendConfig
export function loadConfig(env: TokenBackendEnv, options: ConfigOptions = {}): TokenBackendConfig {
  return options.customAuthorizer ? customAuthorizerConfig(env) : strictConfig(env)
}

/**
 * Validates a configuration object by the rules of the variables, as values (a number is checked
 * as a number), filling the same defaults: what `createTokenApp({ config })` does once, when the
 * app is created. `auth` is required unless `customAuthorizer` (the app has its own
 * `authorize`). A field no setting has is refused, as a misspelt variable is by the command.
 *
 * @throws {ConfigError} naming the field (`config.signing.cdnDomain …`), never its value.
 * @example
 * ```ts
 * const config = tokenConfig({
 *   signing: { clientId: '12345', secretKey: process.env.SECRET_KEY ?? '',
 *     cdnDomain: 'cdn.mysite.net', cdnDomainIp: 'cdn-ip.mysite.net' },
 *   auth: { mode: 'jwt', secret: { key: process.env.JWT_SECRET ?? '' } },
 * })
 * config.auth.mode // 'jwt'
 * ```
 */
export function tokenConfig(
  input: TokenConfigInput,
  options?: ConfigOptions,
): TokenBackendConfig<AuthConfig>
export function tokenConfig(
  input: CustomAuthorizerConfigInput,
  options: ConfigOptions,
): TokenBackendConfig
export function tokenConfig(
  input: CustomAuthorizerConfigInput,
  options: ConfigOptions = {},
): TokenBackendConfig {
  return buildConfig(objectSource(input), options)
}
