/** The shape of one row of the configuration table (`variables.ts`). */
import type { SettingRule } from '@proj/signing/config'

/** Which part of the documentation a variable belongs to. */
export type VariableSection = 'token' | 'cdns' | 'sessions' | 'streams'

/** What docs/configuration.md says of a variable. */
export interface VariableDoc {
  section: VariableSection
  /** When it must be set (`yes`, `with \`jwt\``); absent: never. */
  required?: string
  /** What unset means, when more than its default (`unset: no CORS headers`). */
  unset?: string
  /** What it is for. */
  about: string
}

/** One row of the table. */
export interface VariableSpec<T> {
  /**
   * Where it goes in the configuration object (`session.leafLifetimeSeconds`); several: the
   * object form reads the first one set (`JWT_ALG`: `auth.secret.alg` or `auth.jwks.algs`).
   */
  readonly field: string | readonly string[]
  readonly rule: SettingRule<T>
  /** The value when unset; absent: `undefined`. */
  readonly default?: T
  readonly doc: VariableDoc
}

/**
 * One row, typed so that a row with a `default` reads as never `undefined`.
 *
 * @example
 * ```ts
 * const row = spec({ field: 'auth.videosClaim', rule, default: 'videos', doc })
 * ```
 */
export function spec<T>(
  row: VariableSpec<T> & { default: T },
): VariableSpec<T> & { readonly default: T }
export function spec<T>(row: VariableSpec<T>): VariableSpec<T>
export function spec<T>(row: VariableSpec<T>) {
  return row
}
