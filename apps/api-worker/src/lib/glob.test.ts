import { describe, expect, it } from 'vitest'
import { createRng } from '../data/rng.ts'
import { globMatch, globMatcher } from './glob.ts'

/**
 * The RegExp translation this matcher replaced (`*` → `.*`, `?` → `.`), with `s` so `.` also
 * spans line breaks as `*` and `?` now do: the reference for short patterns only, where its
 * backtracking stays cheap.
 */
const reference = (pattern: string, flags: string) =>
  new RegExp(
    `^${pattern
      .split('')
      .map((char) =>
        char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\/]/g, '\\$&'),
      )
      .join('')}$`,
    `s${flags}`,
  )

describe('globMatch', () => {
  it.each([
    ['/api/*', '/api/v1/users', true],
    ['/api/*', '/api/', true],
    ['/api/*', '/api', false],
    ['/api/*', '/apix/v1', false],
    ['/log?n', '/login', true],
    ['/log?n', '/logn', false],
    ['/log?n', '/logiin', false],
    ['*', '', true],
    ['', '', true],
    ['', 'a', false],
    ['?', '', false],
    ['*a*b*', 'xxaxxbxx', true],
    ['*a*b*', 'xxbxxaxx', false],
    ['a*b*c', 'abbbcbc', true],
    ['a*b*c', 'abbbcb', false],
    ['**', 'anything', true],
    ['*.*', 'no-dot', false],
    // everything but * and ? is literal, RegExp syntax included
    ['.', 'x', false],
    ['.', '.', true],
    ['a+', 'aa', false],
    ['a+', 'a+', true],
    ['(a|b)', '(a|b)', true],
    ['[ab]', 'a', false],
    ['^$\\', '^$\\', true],
    // a full match: no implicit prefix or suffix
    ['api', 'xapi', false],
    ['api', 'apix', false],
    // case-sensitive unless asked
    ['/API/*', '/api/v1', false],
    // ? is one character, an emoji too; * spans line breaks
    ['/?/', '/😀/', true],
    ['a*b', 'a\nb', true],
    ['a?b', 'a\nb', true],
  ])('%j matches %j: %s', (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected)
  })

  it.each([
    ['*.example', 'WWW.Example', true],
    ['API.*', 'api.contoso.com', true],
    ['*contoso*', 'shop.CONTOSO.com', true],
    ['é?', 'ÉA', true],
    // as a RegExp's `i` without `u`: no non-ASCII letter folds into an ASCII one
    ['s', '\u017f', false], // ſ, the long s
    ['k', '\u212a', false], // U+212A, the Kelvin sign
    // per character: ß is not SS (that would change what ? counts)
    ['ß', 'SS', false],
    ['ß', 'ß', true],
  ])('%j matches %j in any case: %s', (pattern, text, expected) => {
    expect(globMatch(pattern, text, { caseInsensitive: true })).toBe(expected)
  })

  it('answers as the RegExp it replaced on every short pattern, in both case modes', () => {
    const rng = createRng(7)
    const alphabet = ['a', 'b', 'A', '.', '/', '-', 'é', 'É', '\n']
    const word = (length: number, extra: string[]) =>
      Array.from({ length }, () => rng.pick([...alphabet, ...extra])).join('')
    for (let i = 0; i < 3000; i++) {
      const pattern = word(rng.int(0, 6), ['*', '*', '?'])
      const text = word(rng.int(0, 8), [])
      for (const [flags, caseInsensitive] of [
        ['', false],
        ['i', true],
      ] as const) {
        expect(
          globMatch(pattern, text, { caseInsensitive }),
          `${JSON.stringify(pattern)} ~ ${JSON.stringify(text)} ${flags}`,
        ).toBe(reference(pattern, flags).test(text))
      }
    }
  })

  it('answers a pattern of 2000 stars and # against 2000 characters (a RegExp never returned)', () => {
    const stars = `${'*'.repeat(2000)}#`
    expect(globMatch(stars, 'a'.repeat(2000))).toBe(false)
    expect(globMatch(stars, `${'a'.repeat(1999)}#`)).toBe(true)
    // stars apart, so none merges with the next: still a bounded walk
    const spread = `${'*a'.repeat(1000)}#`
    expect(globMatch(spread, 'a'.repeat(2000))).toBe(false)
    expect(globMatch(spread, `${'a'.repeat(1999)}#`)).toBe(true)
    expect(globMatch(`${'?*'.repeat(1000)}#`, 'b'.repeat(2000))).toBe(false)
  })

  it('compiles once and tests many texts', () => {
    const api = globMatcher('/api/*')
    expect(['/api/v1', '/apix', '/api/'].map(api)).toEqual([true, false, true])
  })
})
