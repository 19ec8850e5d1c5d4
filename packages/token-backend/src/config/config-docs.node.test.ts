import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CONFIG_DOC, SECTIONS, sectionRows, withTables } from '../../scripts/config-docs.ts'
import { CDN_VARIABLES, CONFIG_VARIABLES } from './variables.ts'

/** The cells of the markdown table between a section's markers (padding ignored). */
const documented = (doc: string, section: string) => {
  const block = doc.split(`<!-- config:${section} -->`)[1]?.split(`<!-- /config:${section} -->`)[0]
  return (block ?? '')
    .trim()
    .split('\n')
    .slice(2) // the header and its rule
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    )
}

describe('docs/configuration.md is the configuration table', () => {
  const doc = readFileSync(CONFIG_DOC, 'utf8')

  it.each(SECTIONS)('section %s: the same variables, defaults, fields and words', (section) => {
    expect(documented(doc, section)).toEqual(sectionRows(section))
  })

  it('lists every variable once (pnpm --filter @proj/token-backend run docs rewrites it)', () => {
    const names = SECTIONS.flatMap((section) => documented(doc, section).map(([name]) => name))
    expect(names).toHaveLength(
      Object.keys(CONFIG_VARIABLES).length + Object.keys(CDN_VARIABLES).length,
    )
    expect(new Set(names).size).toBe(names.length)
    expect(withTables(doc).length).toBeGreaterThan(0)
  })
})
