/**
 * The two forms a configuration comes in, behind one interface: the variables of an environment,
 * and an object (`createTokenApp({ config })`), each value checked by its own form's side of the
 * table's rule and each error naming what the user wrote (`CDN_DOMAIN`, `config.signing.cdnDomain`).
 */
import type { CdnSignerFactory } from '@proj/signing'
import {
  CDN_RULES,
  ConfigError,
  cdnIds,
  cdnVariables,
  isCdnId,
  type Naming,
  readVariable,
  type SettingRule,
} from '@proj/signing/config'
import type { CustomAuthorizerConfigInput } from './types.ts'
import { CDN_VARIABLES, type CdnKey, CONFIG_VARIABLES } from './variables.ts'

/** A configuration in one of its forms, read variable by variable. */
export interface SettingSource {
  /** How this form names a variable in its errors. */
  readonly name: Naming
  /**
   * The value of `variable` by `rule`; `undefined` when unset (an empty string is unset).
   *
   * @throws {ConfigError} when it is invalid, or unset and `required`.
   */
  read<T>(variable: string, rule: SettingRule<T>, required?: boolean): T | undefined
  /** Whether `variable` is set, valid or not. */
  isSet(variable: string): boolean
  /** The ids of the further CDNs, in order, each a valid id. */
  cdnIds(): string[]
  /** The signer given for a CDN (`undefined`: the primary); the variables give none. */
  signerOf(id: string | undefined): CdnSignerFactory | undefined
  /** The error of `variable` as this form names it; `advice` is for the variables' form only. */
  error(variable: string, expected: string, advice?: string): ConfigError
}

/**
 * The variables of an environment (`process.env`, a Worker's `env`).
 *
 * @example
 * ```ts
 * envSource(process.env).read('CLIENT_ID', SIGNING_RULES.CLIENT_ID, true)
 * ```
 */
export function envSource(env: Readonly<Record<string, string | undefined>>): SettingSource {
  return {
    name: (variable) => variable,
    read: (variable, rule, required = false) => readVariable(env, variable, rule, { required }),
    isSet: (variable) => (env[variable] ?? '') !== '',
    cdnIds: () => cdnIds(env.CDNS),
    signerOf: () => undefined,
    error: (variable, expected, advice) => new ConfigError(variable, expected, advice),
  }
}

/** A value somewhere in the object: its path below `config.`, and the value (maybe `undefined`). */
interface Found {
  path: string
  value: unknown
}

const isSetValue = (value: unknown) => value !== undefined && value !== ''
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const valueAt = (input: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((at, key) => (isRecord(at) ? at[key] : undefined), input)

const expectedOf = ({ expected }: SettingRule<unknown>, name: Naming) =>
  typeof expected === 'function' ? expected(name) : expected

/** Every field of the object form (the table's), and the signers it alone has. */
const FIELDS = new Set([
  ...Object.values(CONFIG_VARIABLES).flatMap(({ field }) => field),
  'primaryCdn.signer',
])
const CDN_FIELDS = new Set(['id', 'signer', ...Object.keys(CDN_VARIABLES)])

/** Refuses a field no setting has: a misspelt one must not leave its default on unnoticed. */
function refuseUnknown(value: Record<string, unknown>, prefix: string): void {
  for (const [key, child] of Object.entries(value)) {
    const path = `${prefix}${key}`
    if (path === 'cdns' && Array.isArray(child)) {
      child.forEach((cdn: unknown, index) => {
        if (!isRecord(cdn)) return
        for (const [field, setting] of Object.entries(cdn))
          if (!CDN_FIELDS.has(field) && setting !== undefined)
            throw new ConfigError(`config.cdns[${index}].${field}`, 'is not a setting of a CDN')
      })
      continue
    }
    if (child === undefined || FIELDS.has(path)) continue
    const parent = [...FIELDS].some((field) => field.startsWith(`${path}.`))
    if (!parent || !isRecord(child))
      throw new ConfigError(`config.${path}`, 'is not a setting (docs/configuration.md)')
    refuseUnknown(child, `${path}.`)
  }
}

/**
 * A configuration object (`TokenConfigInput`, or a whole validated configuration), checked as
 * values: a number is a number, never a text parsed back. Its errors name `config.<field>`.
 *
 * @throws {ConfigError} for a field no setting has, or a CDN whose id is not one.
 * @example
 * ```ts
 * objectSource({ signing, auth: { mode: 'none' } }).read('AUTH_MODE', rule) // 'none'
 * ```
 */
export function objectSource(input: CustomAuthorizerConfigInput): SettingSource {
  if (isRecord(input)) refuseUnknown(input, '')
  const found = new Map<string, Found>()
  const name: Naming = (variable) => `config.${found.get(variable)?.path ?? variable}`
  for (const [variable, { field }] of Object.entries(CONFIG_VARIABLES)) {
    const candidates = (typeof field === 'string' ? [field] : field).map((path) => ({
      path,
      value: valueAt(input, path),
    }))
    found.set(
      variable,
      candidates.find(({ value }) => isSetValue(value)) ?? (candidates[0] as Found),
    )
  }
  const cdns = input.cdns ?? []
  cdns.forEach((cdn, index) => {
    if (typeof cdn?.id !== 'string' || !isCdnId(cdn.id))
      throw new ConfigError(`config.cdns[${index}].id`, expectedOf(CDN_RULES.id, name))
    const names = cdnVariables(cdn.id)
    for (const key of Object.keys(CDN_VARIABLES) as CdnKey[])
      found.set(names[key], { path: `cdns[${index}].${key}`, value: cdn[key] })
  })
  return {
    name,
    read(variable, rule, required = false) {
      const { value } = found.get(variable) ?? { value: undefined }
      const expected = expectedOf(rule, name)
      if (!isSetValue(value)) {
        if (required) throw new ConfigError(name(variable), `is required: it ${expected}`)
        return undefined
      }
      const parsed = rule.value(value)
      if (parsed === undefined) throw new ConfigError(name(variable), expected)
      return parsed
    },
    isSet: (variable) => isSetValue(found.get(variable)?.value),
    cdnIds: () => cdns.map(({ id }) => id),
    signerOf: (id) =>
      id === undefined ? input.primaryCdn?.signer : cdns.find((cdn) => cdn.id === id)?.signer,
    error: (variable, expected) => new ConfigError(name(variable), expected),
  }
}
