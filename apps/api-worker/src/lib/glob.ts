// Glob-like patterns of the WAAP filters (spec 4.11 `path`, 4.13 `name`): `*` any run of
// characters, `?` one character, everything else literal, matched against the whole text.
//
// Not a RegExp: `*` as `.*` in a backtracking engine is exponential in the number of stars
// (`path=********#` over a day of events took seconds, ×3 per star, and `path` may be 2048
// characters). The matcher below is the iterative two-pointer wildcard algorithm: it only ever
// returns to the last star seen, so a match costs at most O(pattern × text) steps.

/** How {@link globMatcher} compares characters. */
export interface GlobOptions {
  /** Letters match in either case (as a RegExp's `i` flag does). */
  caseInsensitive?: boolean
}

/** `*` in a compiled pattern. */
const ANY_RUN = -1
/** `?` in a compiled pattern. */
const ANY_ONE = -2

/** Code points up to here are one UTF-16 unit; the ones above take two. */
const MAX_BMP = 0xffff

/**
 * The case-insensitive form of a code point, by the rule of a RegExp's `i` flag without `u`
 * (ECMA-262 Canonicalize), the flag the domain filter used: its upper case when that is one code
 * point and does not turn a non-ASCII letter into an ASCII one (the long `ſ` does not match `s`).
 * Per code point, never on the whole text: `ß` → `SS` would change the length `?` counts.
 */
function canonical(code: number): number {
  if (code < 0x80) return code >= 0x61 && code <= 0x7a ? code - 0x20 : code
  const upper = String.fromCodePoint(code).toUpperCase()
  const first = upper.codePointAt(0) ?? code
  const single = upper.length === (first > MAX_BMP ? 2 : 1)
  return single && first >= 0x80 ? first : code
}

/**
 * Compiles a glob-like pattern once into a full-match test: `*` is any run of characters (also
 * none, also line breaks), `?` exactly one character (a code point, so one emoji), everything
 * else literal. Each test takes at most O(pattern length × text length) steps, whatever the
 * pattern: there is no backtracking beyond the last `*`.
 *
 * @example
 * ```ts
 * const api = globMatcher('/api/*')
 * api('/api/v1/users') // true
 * api('/apix')         // false
 * globMatcher('*.example', { caseInsensitive: true })('WWW.Example') // true
 * ```
 */
export function globMatcher(
  pattern: string,
  { caseInsensitive = false }: GlobOptions = {},
): (text: string) => boolean {
  const fold = caseInsensitive ? canonical : (code: number) => code
  const tokens: number[] = []
  for (const char of pattern) {
    // a run of stars matches what one star matches: kept as one, the loop below stays short
    if (char === '*') {
      if (tokens.at(-1) !== ANY_RUN) tokens.push(ANY_RUN)
    } else tokens.push(char === '?' ? ANY_ONE : fold(char.codePointAt(0) ?? 0))
  }
  return function matchesGlob(text: string): boolean {
    let at = 0 // UTF-16 index into text
    let next = 0 // index into tokens
    // the last star seen: the token after it, and where in text its run ends for now
    let afterStar = -1
    let starEnd = 0
    while (at < text.length) {
      const code = text.codePointAt(at) ?? 0
      const token = tokens[next]
      if (token === ANY_RUN) {
        // first try the star as an empty run
        afterStar = ++next
        starEnd = at
      } else if (token === ANY_ONE || (token !== undefined && token === fold(code))) {
        next++
        at += code > MAX_BMP ? 2 : 1
      } else if (afterStar !== -1) {
        // mismatch: the last star takes one more character, and the rest is tried again from there
        starEnd += (text.codePointAt(starEnd) ?? 0) > MAX_BMP ? 2 : 1
        at = starEnd
        next = afterStar
      } else return false
    }
    while (tokens[next] === ANY_RUN) next++
    return next === tokens.length
  }
}

/**
 * Whether the whole of `text` matches the glob-like `pattern` (see {@link globMatcher}; compile
 * once with it to test many texts).
 *
 * @example
 * ```ts
 * globMatch('/log?n', '/login')                                   // true
 * globMatch('*contoso*', 'WWW.CONTOSO.COM', { caseInsensitive: true }) // true
 * globMatch('*'.repeat(2000) + '#', 'a'.repeat(2000))              // false, at once
 * ```
 */
export function globMatch(pattern: string, text: string, options: GlobOptions = {}): boolean {
  return globMatcher(pattern, options)(text)
}
