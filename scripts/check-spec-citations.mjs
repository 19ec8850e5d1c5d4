#!/usr/bin/env node
// Every "spec N.N" a comment cites must be a section of docs/protocol.md (a heading such as
// "### 2.7 Billing addendums", or inside a range such as "## 4.1–4.13 …"): a comment that cites
// a section nobody can open points nowhere.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { codeFiles } from './code-files.mjs'

const root = join(import.meta.dirname, '..')
const FOLDERS = ['packages', 'apps', 'e2e', 'bench', 'stack', 'scripts']
const CITATION = /\bspec (\d+(?:\.\d+)?)/g

const headings = readFileSync(join(root, 'docs', 'protocol.md'), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('#'))
/** Sections the document has: each numbered heading, each number inside a heading's range. */
const covers = (section) =>
  headings.some((heading) => {
    const range = /^#+ (\d+)\.(\d+)[–-](\d+)\.(\d+)\b/.exec(heading)
    if (range) {
      const [major, minor] = section.split('.').map(Number)
      return major === Number(range[1]) && minor >= Number(range[2]) && minor <= Number(range[4])
    }
    return new RegExp(`^#+ ${section.replace('.', '\\.')}(?![.\\d])`).test(heading)
  })

const missing = []
for (const folder of FOLDERS) {
  for (const path of codeFiles(root, folder)) {
    for (const [, section] of readFileSync(join(root, path), 'utf8').matchAll(CITATION))
      if (!covers(section)) missing.push(`${path}: spec ${section}`)
  }
}
if (missing.length) {
  console.error(`citations: not a section of docs/protocol.md:\n  ${missing.join('\n  ')}`)
  process.exit(1)
}
console.log('citations: every "spec N.N" in the code is a section of docs/protocol.md')
