// `pnpm --filter @proj/token-backend run docs`: writes the variables' tables of docs/configuration.md
// (between `<!-- config:SECTION -->` markers) from the configuration table, the one source of
// every variable's rule, default and field. src/config/config-docs.node.test.ts fails when the
// doc and the table differ.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cdnVariables } from '@proj/signing/config'
import {
  CDN_VARIABLES,
  CONFIG_VARIABLES,
  type VariableDoc,
  type VariableSection,
} from '../src/config/variables.ts'

/** The doc the tables live in. */
export const CONFIG_DOC = join(import.meta.dirname, '../../../docs/configuration.md')

/** The sections, in the doc's order. */
export const SECTIONS: readonly VariableSection[] = ['token', 'cdns', 'sessions', 'streams']

const HEADER = ['variable', 'required', 'default', 'in the object', 'meaning']

const code = (text: string) => `\`${text}\``
const shown = (value: unknown) =>
  value === undefined ? '' : code(Array.isArray(value) ? value.join(',') : String(value))

/** One row: the variable, when it must be set, its default, its field, what it is for. */
function row(
  name: string,
  field: string | readonly string[],
  doc: VariableDoc,
  secret: boolean,
  fallback: unknown,
): string[] {
  const required = doc.required ?? 'no'
  return [
    code(name),
    secret ? `${required} (**secret**)` : required,
    doc.unset ?? shown(fallback),
    (typeof field === 'string' ? [field] : field).map(code).join(' or '),
    doc.about,
  ]
}

/**
 * The rows of one section, in the table's order (each further CDN's variables after `CDNS`).
 *
 * @example
 * ```ts
 * sectionRows('sessions')[0]?.[0] // '`SESSION_SECRET`'
 * ```
 */
export function sectionRows(section: VariableSection): string[][] {
  const rows = Object.entries(CONFIG_VARIABLES)
    .filter(([, spec]) => spec.doc.section === section)
    .map(([name, spec]) =>
      row(
        name,
        spec.field,
        spec.doc,
        spec.rule.secret === true,
        'default' in spec ? spec.default : undefined,
      ),
    )
  if (section !== 'cdns') return rows
  const template = cdnVariables('<ID>')
  return [
    ...rows,
    ...Object.entries(CDN_VARIABLES).map(([key, spec]) =>
      row(
        template[key as keyof typeof template],
        `cdns[].${key}`,
        spec.doc,
        key === 'secretKey',
        'default' in spec ? spec.default : undefined,
      ),
    ),
  ]
}

/** A markdown table, columns padded as biome formats them. */
function table(rows: readonly string[][]): string {
  const all = [HEADER, ...rows]
  const widths = HEADER.map((_, column) =>
    Math.max(...all.map((cells) => [...(cells[column] ?? '')].length)),
  )
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell + ' '.repeat((widths[column] ?? 0) - [...cell].length)).join(' | ')} |`
  return [line(HEADER), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join(
    '\n',
  )
}

/**
 * The doc with each section's table put between its markers.
 *
 * @throws {Error} when a section's markers are missing.
 * @example
 * ```ts
 * writeFileSync(CONFIG_DOC, withTables(readFileSync(CONFIG_DOC, 'utf8')))
 * ```
 */
export function withTables(doc: string): string {
  return SECTIONS.reduce((text, section) => {
    const open = `<!-- config:${section} -->`
    const close = `<!-- /config:${section} -->`
    const start = text.indexOf(open)
    const end = text.indexOf(close)
    if (start === -1 || end < start)
      throw new Error(`docs/configuration.md has no ${open} … ${close}`)
    return `${text.slice(0, start + open.length)}\n${table(sectionRows(section))}\n${text.slice(end)}`
  }, doc)
}

if (import.meta.main) {
  writeFileSync(CONFIG_DOC, withTables(readFileSync(CONFIG_DOC, 'utf8')))
  console.log('docs/configuration.md: the variables written from src/config/variables.ts')
}
