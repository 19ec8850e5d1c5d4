#!/usr/bin/env node
// A dry run of publishing: `pnpm pack` for every non-private workspace package (as `pnpm release`
// packs them: publishConfig applied, workspace: ranges replaced, prepack run), then each tarball's
// package.json and files checked by scripts/check-packs-rules.mjs. Fails naming the package and
// the field. The tarballs stay in .tmp/packs/ (index.json maps each name to its file there) for
// tests that install them with npm. `pnpm check:packs`; a step of `npm test` after the builds.
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { basename, join, relative } from 'node:path'
import { promisify } from 'node:util'
import { checkPack, readTarball } from './check-packs-rules.mjs'

const run = promisify(execFile)
const root = join(import.meta.dirname, '..')
const destination = join(root, '.tmp', 'packs')
const started = performance.now()

// the workspace as pnpm sees it (pnpm-workspace.yaml), so a new package is checked unasked
const { stdout } = await run('pnpm', ['ls', '--recursive', '--depth', '-1', '--json'], {
  cwd: root,
})
const workspace = JSON.parse(stdout)
const publishable = workspace.filter((pkg) => !pkg.private)
if (publishable.length === 0) {
  console.log('[packs] pnpm lists no non-private package: nothing would be published')
  process.exit(1)
}
const unpublished = new Set(workspace.filter((pkg) => pkg.private).map((pkg) => pkg.name))
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const license = readFileSync(join(root, 'LICENSE'), 'utf8')

rmSync(destination, { recursive: true, force: true })
mkdirSync(destination, { recursive: true })

/** Packs one package into .tmp/packs/ and checks the tarball; its report line and problems. */
async function packAndCheck(pkg) {
  const at = performance.now()
  const directory = relative(root, pkg.path)
  let packed
  try {
    const result = await run('pnpm', ['pack', '--pack-destination', destination, '--json'], {
      cwd: pkg.path,
      maxBuffer: 16 * 1024 * 1024,
    })
    packed = JSON.parse(result.stdout)
  } catch (error) {
    return { pkg, problems: [`pnpm pack failed: ${packFailure(error)}`] }
  }
  const files = readTarball(readFileSync(packed.filename))
  const manifest = JSON.parse(files.get('package.json')?.toString('utf8') ?? '{}')
  const source = JSON.parse(readFileSync(join(pkg.path, 'package.json'), 'utf8'))
  const problems = checkPack({
    manifest,
    files,
    directory,
    root: rootManifest,
    license,
    unpublished,
    source,
  })
  const seconds = ((performance.now() - at) / 1000).toFixed(1)
  const size = `${(readFileSync(packed.filename).length / 1024).toFixed(1)} KiB`
  const line = `${pkg.name}@${manifest.version}  ${size}, ${files.size} files, ${seconds} s  ${relative(root, packed.filename)}`
  return { pkg, problems, line, filename: packed.filename }
}

/** pnpm's reason (its --json error) and what the prepack printed, without the JSON envelope. */
function packFailure(error) {
  const output = `${error.stdout ?? ''}\n${error.stderr ?? ''}`
  const json = output.indexOf('{\n  "error"')
  const reason = json < 0 ? error.message : JSON.parse(output.slice(json)).error.message
  const printed = (json < 0 ? output : output.slice(0, json)).trim().replace(/^/gm, '    ')
  return printed ? `${reason}\n${printed}` : reason
}

// Each pack is mostly a tsc build in its prepack: as many at once as there are cores.
const queue = [...publishable]
const results = []
await Promise.all(
  Array.from({ length: Math.min(availableParallelism(), queue.length) }, async () => {
    for (let pkg = queue.shift(); pkg; pkg = queue.shift()) results.push(await packAndCheck(pkg))
  }),
)
results.sort((a, b) => a.pkg.name.localeCompare(b.pkg.name))

const index = Object.fromEntries(
  results
    .filter((result) => result.filename)
    .map((result) => [result.pkg.name, basename(result.filename)]),
)
writeFileSync(join(destination, 'index.json'), `${JSON.stringify(index, null, 2)}\n`)

// one stream, so the report reads in package order wherever it is captured
let failed = 0
for (const { pkg, problems, line } of results) {
  if (problems.length === 0) console.log(`  ok    ${line}`)
  else {
    failed += 1
    for (const problem of problems) console.log(`  FAIL  ${pkg.name}: ${problem}`)
  }
}
const seconds = ((performance.now() - started) / 1000).toFixed(1)
const verdict = failed
  ? `${failed} of ${results.length} not publishable`
  : `${results.length} publishable`
console.log(`[packs] ${verdict}; pnpm pack into .tmp/packs/ and checks took ${seconds} s`)
process.exit(failed ? 1 : 0)
