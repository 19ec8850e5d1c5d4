/**
 * The shapes of the backend's settings, each a rule for both forms (`SettingRule` of
 * `@proj/signing/config`): a variable's text, or an object's value checked as that value.
 */
import { type SettingRule, textRule } from '@proj/signing/config'

const trimmedItems = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)

/**
 * A list of one or more items: comma-separated as a variable, an array in an object.
 *
 * @example
 * ```ts
 * listRule((t) => (/^[a-z-]+$/i.test(t) ? t.toLowerCase() : undefined), 'must be header names').text('A, b')
 * // ['a', 'b']
 * ```
 */
export function listRule<T>(
  item: (text: string) => T | undefined,
  expected: string,
): SettingRule<T[]> {
  const all = (items: readonly unknown[]) => {
    const parsed = items.map((each) => (typeof each === 'string' ? item(each) : undefined))
    return parsed.length > 0 && parsed.every((each) => each !== undefined)
      ? (parsed as T[])
      : undefined
  }
  return {
    text: (text) => all(trimmedItems(text)),
    value: (value) => (Array.isArray(value) ? all(value) : undefined),
    expected,
  }
}

/**
 * One of a few words, the same in both forms.
 *
 * @example
 * ```ts
 * oneOfRule(['none', 'jwt'], 'must be "jwt" or "none"').text('jwt') // 'jwt'
 * ```
 */
export function oneOfRule<const T extends string>(
  choices: readonly T[],
  expected: SettingRule<T>['expected'],
): SettingRule<T> {
  return textRule((text) => choices.find((choice) => choice === text), expected)
}

/**
 * A yes or no: `true`/`false` as a variable, a boolean in an object.
 *
 * @example
 * ```ts
 * booleanRule('must be "true" or "false"').value(false) // false
 * ```
 */
export function booleanRule(expected: string): SettingRule<boolean> {
  return {
    text: (text) => (text === 'true' ? true : text === 'false' ? false : undefined),
    value: (value) => (typeof value === 'boolean' ? value : undefined),
    expected,
  }
}

/**
 * A text of at least `min` characters; `secret` ones are never shown and advise
 * `wrangler secret put`.
 *
 * @example
 * ```ts
 * minLengthRule(32, 'must be at least 32 characters', { secret: true })
 * ```
 */
export function minLengthRule(
  min: number,
  expected: string,
  options: { secret?: boolean } = {},
): SettingRule<string> {
  return textRule((text) => (text.length >= min ? text : undefined), expected, options)
}

/**
 * Whether `text` is an absolute URL whose scheme is one of `protocols` (`'https:'`, …) and that
 * has a host.
 *
 * @example
 * ```ts
 * isUrlOf('redis://cache:6379', ['redis:', 'rediss:']) // true
 * ```
 */
export function isUrlOf(text: string, protocols: readonly string[]): boolean {
  try {
    const url = new URL(text)
    return protocols.includes(url.protocol) && url.hostname !== ''
  } catch {
    return false
  }
}

/**
 * Whether `text` is exactly an origin (`https://player.example.com`, no path, no slash).
 *
 * @example
 * ```ts
 * isOrigin('https://a.test/') // false
 * ```
 */
export function isOrigin(text: string): boolean {
  return isUrlOf(text, ['https:', 'http:']) && new URL(text).origin === text
}

/**
 * JSON text as a variable, the parsed value in an object, then checked by `check`.
 *
 * @example
 * ```ts
 * jsonRule((v) => (Array.isArray(v) ? v : undefined), 'must be a JSON array').text('[1]') // [1]
 * ```
 */
export function jsonRule<T>(
  check: (value: unknown) => T | undefined,
  expected: string,
): SettingRule<T> {
  return {
    text: (text) => {
      try {
        return check(JSON.parse(text))
      } catch {
        return undefined
      }
    },
    value: check,
    expected,
  }
}
