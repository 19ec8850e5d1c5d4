/**
 * The signing half of a deployment's configuration (spec 4.14), `@proj/signing/config`: the
 * variables every signer reads (the token backend, `proj-sign`, the CDN emulator) and the CDN
 * list, validated in one place, by rules that read a variable's text or an object's value. A
 * separate entry, so player bundles never see it.
 */
export {
  CDN_RULES,
  type CdnConfig,
  type CdnEnv,
  type CdnListVariable,
  cdnIds,
  cdnVariables,
  checkCdnIds,
  checkCdnList,
  DEFAULT_CDN_ID,
  isCdnId,
  type ListedCdn,
  type PrimaryCdnConfig,
  parseCdnList,
} from './cdn-list.ts'
export {
  ConfigError,
  type Naming,
  parseSigningConfig,
  perEnvironment,
  readVariable,
  type SettingRule,
  SIGNING_RULES,
  type SigningEnv,
  type SigningVariable,
  secretRule,
  signingVariable,
  textRule,
  type VariableRule,
  wholeNumberRule,
} from './signing-config.ts'
