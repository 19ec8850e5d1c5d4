#!/usr/bin/env node
// The repository's layers, checked on manifests AND on the imports in the code:
// - packages/* are libraries: they depend on no app (a library's tests may run one as a fixture,
//   a devDependency imported only by test files: the token backend's sessions are tested against
//   the CDN emulator), and nothing product-side (packages/*, apps/*) depends on the test,
//   benchmark or local-stack workspaces (e2e, bench, stack), but for the same kind of fixture:
//   a library's tests may take the stack's helpers (the token backend's redis-server on a freePort);
// - every workspace imports another only by its package name, declared in its package.json: no
//   relative import leaves its folder (`../../scripts/…`, `../../apps/…`), so the layering of the
//   manifests is the layering of the code.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { codeFiles } from './code-files.mjs'

const root = join(import.meta.dirname, '..')
const KINDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']
// `from '…'`, `import '…'`, `import('…')`, `export … from '…'`
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g

/** Every workspace: its folder, layer and manifest. */
function workspaces() {
  const folders = ['packages', 'apps'].flatMap((layer) =>
    readdirSync(join(root, layer), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => ({ folder: join(layer, entry.name), layer })),
  )
  const tools = ['e2e', 'bench', 'stack'].map((folder) => ({ folder, layer: folder }))
  return [...folders, ...tools].flatMap(({ folder, layer }) => {
    try {
      const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'))
      return [{ folder, layer, manifest }]
    } catch {
      return []
    }
  })
}

/** Test code: a test file, a test folder's file, a vitest config. */
const TEST_CODE = /(?:^|\/)(?:test\/.*|[^/]+\.test(?:-d)?\.[cm]?[jt]s|vitest\.config\.[cm]?[jt]s)$/

/**
 * Whether `file` lies in a folder with a package.json of its own below the workspace `folder`:
 * another package, not the workspace's code (e2e/adoption/app: an adopter's app, installed from
 * the tarballs outside the workspace).
 */
const inNestedPackage = (folder, file) => {
  for (let dir = dirname(file); dir !== folder && dir !== '.'; dir = dirname(dir))
    if (existsSync(join(root, dir, 'package.json'))) return true
  return false
}

const all = workspaces()
const layerOf = new Map(all.map(({ manifest, layer }) => [manifest.name, layer]))
const violations = []
for (const { folder, layer, manifest } of all) {
  const declared = new Set(KINDS.flatMap((kind) => Object.keys(manifest[kind] ?? {})))
  const shipped = new Set(
    KINDS.filter((kind) => kind !== 'devDependencies').flatMap((kind) =>
      Object.keys(manifest[kind] ?? {}),
    ),
  )
  // apps and the stack a library's tests use: allowed as devDependencies, imported by test code only
  const fixtures = new Set()
  for (const name of declared) {
    const target = layerOf.get(name)
    if (layer === 'packages' && (target === 'apps' || target === 'stack')) {
      if (shipped.has(name))
        violations.push(
          `${folder}/package.json: the library depends on the ${target === 'apps' ? 'app' : 'stack'} ${name}`,
        )
      else fixtures.add(name)
    }
    if (
      (layer === 'packages' || layer === 'apps') &&
      ['e2e', 'bench', 'stack'].includes(target) &&
      !fixtures.has(name)
    )
      violations.push(`${folder}/package.json: product code depends on ${name} (${target})`)
  }
  for (const file of codeFiles(root, folder).filter((file) => !inNestedPackage(folder, file))) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const [, specifier] of text.matchAll(SPECIFIER)) {
      if (specifier.startsWith('.')) {
        const target = relative(join(root, folder), resolve(root, dirname(file), specifier))
        if (target.startsWith('..'))
          violations.push(`${file}: '${specifier}' leaves ${folder}/ (import it by package name)`)
      } else if (specifier.startsWith('@proj/')) {
        const name = specifier.split('/').slice(0, 2).join('/')
        if (name !== manifest.name && !declared.has(name))
          violations.push(`${file}: imports ${name}, which ${folder}/package.json does not declare`)
        else if (fixtures.has(name) && !TEST_CODE.test(relative(folder, file)))
          violations.push(`${file}: the library's code imports the fixture ${name} (tests only)`)
      }
    }
  }
}
if (violations.length) {
  console.error(`layering: ${violations.length} violation(s):\n  ${violations.join('\n  ')}`)
  process.exit(1)
}
console.log(
  `layering: ${all.length} workspaces; no library depends on an app, no product code on e2e, bench or stack (test fixtures aside), every cross-workspace import by declared package name`,
)
