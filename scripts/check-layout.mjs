#!/usr/bin/env node
// docs/layout.md names every source file, and only files that exist: a newcomer finds the signing
// rules, the refresh timer or the WAAP handlers by name, and a file added without a line there
// (or a line left behind by a deleted file) fails here, naming the lines to add or remove.
//
// The selection (a file must be named):
// - tracked or new (not git-ignored) files under packages/, apps/, bench/, e2e/, stack/, scripts/;
// - with a source extension: .ts .tsx .mts .cts .js .mjs .cjs, shell scripts (.sh), pages
//   (.html), stylesheets (.css) and the nginx templates (.template);
// - minus tests beside the code (`*.test.ts`, `*.test.mjs`, type tests `*.test-d.ts`: layout.md
//   covers them in one sentence), declarations (`*.d.ts`), tool configuration (`*.config.ts`:
//   vitest, vite, playwright; they may be named, they need not be) and committed test media
//   (`media/`: MPEG-TS segments end in .ts too).
// How layout.md names them: inside its ``` blocks, a line whose first word is a path (ending in
// `/` for a folder, in an extension for a file) followed by two spaces or the line's end; a path
// is relative to the nearest less-indented folder line above it. Other lines are descriptions.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const ROOTS = ['packages', 'apps', 'bench', 'e2e', 'stack', 'scripts']
const SOURCE = /\.(?:[cm]?[jt]s|tsx|sh|html|css|template)$/
const NOT_REQUIRED = [
  /\.test(?:-d)?\.[cm]?[jt]sx?$/, // tests beside the code, type tests
  /\.d\.[cm]?ts$/, // declarations
  /(?:^|\/)[^/]+\.config\.[cm]?[jt]s$/, // vitest, vite, playwright configuration
  /(?:^|\/)media\//, // committed test media
]
// a path as layout.md writes it: `src/token.ts`, `e2e/`, `nginx.conf.template`, `.dev.vars.example`
const PATH = /^[\w@.-]+(?:\/[\w@.-]+)*(?:\/|\.[A-Za-z]+)$/

/**
 * Whether docs/layout.md must name `path` (relative to the repository root).
 *
 * @param {string} path
 * @returns {boolean}
 * @example isLayoutSource('packages/signing/src/token.ts') // true; token.test.ts: false
 */
export function isLayoutSource(path) {
  return (
    ROOTS.some((root) => path.startsWith(`${root}/`)) &&
    SOURCE.test(path) &&
    !NOT_REQUIRED.some((rule) => rule.test(path))
  )
}

/**
 * The paths layout.md names, resolved against their folders, with the line naming each.
 *
 * @param {string} markdown the text of docs/layout.md
 * @returns {{ path: string, line: number, indent: number }[]} folders end in `/`
 * @example namedPaths('```\npackages/signing/\n  src/token.ts  MD5\n```')
 * // [{ path: 'packages/signing/', … }, { path: 'packages/signing/src/token.ts', line: 3, indent: 2 }]
 */
export function namedPaths(markdown) {
  const named = []
  let inBlock = false
  let folders = []
  for (const [index, text] of markdown.split('\n').entries()) {
    if (text.startsWith('```')) {
      inBlock = !inBlock
      folders = []
      continue
    }
    const entry = inBlock && /^( *)(\S+)(?: {2,}|$)/.exec(text)
    if (!entry || !PATH.test(entry[2])) continue
    const indent = entry[1].length
    while (folders.length && folders.at(-1).indent >= indent) folders.pop()
    const path = (folders.at(-1)?.path ?? '') + entry[2]
    named.push({ path, line: index + 1, indent })
    if (path.endsWith('/')) folders.push({ path, indent })
  }
  return named
}

/**
 * What is wrong with layout.md: source files it does not name (each with the line to add and
 * where), and names of files or folders that do not exist.
 *
 * @param {{ markdown: string, files: string[], exists: (path: string) => boolean }} input
 *   `files`: the candidate files (the selection applies here); `exists`: a path on disk
 * @returns {{ missing: string[], stale: string[] }} messages, one per problem
 * @example layoutProblems({ markdown, files: gitFiles(root), exists: (p) => existsSync(p) })
 */
export function layoutProblems({ markdown, files, exists }) {
  const named = namedPaths(markdown)
  const names = new Set(named.map(({ path }) => path))
  const folders = named.filter(({ path }) => path.endsWith('/'))
  const missing = files
    .filter((path) => isLayoutSource(path) && !names.has(path))
    .sort()
    .map((path) => {
      const home = folders
        .filter((folder) => path.startsWith(folder.path))
        .reduce(
          (deepest, folder) => (folder.path.length > deepest.path.length ? folder : deepest),
          {
            path: '',
            line: 0,
            indent: -2,
          },
        )
      const add = `${' '.repeat(home.indent + 2)}${path.slice(home.path.length)}  <what it is>`
      const where = home.line ? `under ${home.path} (line ${home.line})` : 'at the top level'
      return `${path}: add ${where}: "${add}"`
    })
  const stale = named
    .filter(({ path }) => !exists(path))
    .map(
      ({ path, line }) =>
        `${path} (line ${line}): no such ${path.endsWith('/') ? 'folder' : 'file'}`,
    )
  return { missing, stale }
}

/** Tracked files and new ones git does not ignore, under the selection's roots. */
function gitFiles(root) {
  const listed = spawnSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', ...ROOTS],
    {
      cwd: root,
      encoding: 'utf8',
    },
  )
  if (listed.status !== 0) throw new Error(`layout: git ls-files failed: ${listed.stderr}`)
  // a file deleted but not yet committed is still in the index
  return listed.stdout.split('\0').filter((path) => path && existsSync(join(root, path)))
}

if (import.meta.main) {
  const root = join(import.meta.dirname, '..')
  const { missing, stale } = layoutProblems({
    markdown: readFileSync(join(root, 'docs', 'layout.md'), 'utf8'),
    files: gitFiles(root),
    exists: (path) => existsSync(join(root, path)),
  })
  if (missing.length)
    console.error(`layout: docs/layout.md does not name:\n  ${missing.join('\n  ')}`)
  if (stale.length)
    console.error(`layout: docs/layout.md names what does not exist:\n  ${stale.join('\n  ')}`)
  if (missing.length || stale.length) process.exit(1)
  console.log('layout: docs/layout.md names every source file, and only files that exist')
}
