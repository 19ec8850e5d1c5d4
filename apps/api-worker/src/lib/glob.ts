/**
 * A glob-like pattern as a full-match regular expression: `*` is any run of characters, `?` one
 * character, everything else literal.
 *
 * @example
 * ```ts
 * globToRegExp('/api/*').test('/api/v1/users')      // true
 * globToRegExp('*.example', 'i').test('WWW.Example') // true
 * ```
 */
export function globToRegExp(pattern: string, flags = ''): RegExp {
  const body = pattern
    .split('')
    .map((char) =>
      char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\/]/g, '\\$&'),
    )
    .join('')
  return new RegExp(`^${body}$`, flags)
}
