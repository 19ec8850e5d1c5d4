// The adopter's view (issue 25): every publishable package as its packed tarball, installed WITH
// NPM into an app outside the workspace (under the OS temp folder, so Node's and TypeScript's
// resolution cannot walk up into the repository's node_modules), then
// 1. every TypeScript/JavaScript block of the READMEs and docs/ type-checked there as a module
//    of that app (readme-blocks.ts: a block opts out only with a visible reason);
// 2. the app's pages built with Vite (hls.js and hls.js/light through ESM), and the build's
//    module list read: each page holds exactly one hls.js build;
// 3. the video.js script-tag page pointed at the installed files (the package's `unpkg` build);
// 4. every Worker the documentation prints (a section whose blocks name `wrangler.jsonc` and its
//    files) built as printed with `wrangler deploy --dry-run` (worker-dry-run.ts).
// e2e/tests/adoption.spec.ts then plays the pages against the e2e stack.
// `node e2e/adoption/prepare.ts` (npm test's step "adoption") runs all of it; the spec calls
// ensurePrepared(), which does nothing when the fixture already matches its inputs.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  blockFileName,
  blockModule,
  type ReadmeBlock,
  readmeBlocks,
  workerProjects,
} from './readme-blocks.ts'
import { dryRunWorker } from './worker-dry-run.ts'

const ROOT = join(import.meta.dirname, '..', '..')
const TEMPLATE = join(import.meta.dirname, 'app')
/** Where `npm test`'s step "packs" leaves the tarballs (scripts/check-packs.mjs). */
const PACKS = join(ROOT, '.tmp', 'packs')
const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

/** The fixture app: one per checkout, in the OS temp folder. */
export const FIXTURE = join(tmpdir(), `proj-adoption-${sha(ROOT).slice(0, 8)}`)
const STAMP = join(FIXTURE, 'prepared.json')

/** The pages of the build and the one hls.js file each must load. */
export const HLS_BUILD_OF_PAGE: Record<string, string> = {
  'hlsjs.html': 'hls.mjs',
  'hlsjs-light.html': 'hls.light.mjs',
}

/** What {@link prepare} found wrong once the pages were built (they can be played all the same). */
export class PrepareError extends Error {
  override name = 'PrepareError'
}

interface Publishable {
  folder: string
  name: string
  /** The tarball `pnpm pack` writes: `proj-signing-0.1.0.tgz`. */
  tarball: string
}

const log = (line: string) => console.log(`[adoption] ${line}`)

function run(command: string, args: string[], cwd: string): { ok: boolean; output: string } {
  // npm must not inherit pnpm's npm_config_* (the step runs under `pnpm exec`)
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  )
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8' })
  return {
    ok: result.status === 0,
    output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error?.message ?? ''}`,
  }
}

function must(command: string, args: string[], cwd: string): string {
  const { ok, output } = run(command, args, cwd)
  if (!ok) throw new Error(`adoption: ${command} ${args.join(' ')} failed in ${cwd}:\n${output}`)
  return output
}

function publishablePackages(): Publishable[] {
  const packages = join(ROOT, 'packages')
  return readdirSync(packages).flatMap((entry) => {
    const file = join(packages, entry, 'package.json')
    if (!existsSync(file)) return []
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
      name: string
      version: string
      private?: boolean
    }
    if (manifest.private) return []
    const tarball = `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`
    return [{ folder: join(packages, entry), name: manifest.name, tarball }]
  })
}

/** Newest modification time of the package's own files (git's view: no build output). */
function newestSource(folder: string): number {
  const { ok, output: files } = run(
    'git',
    ['ls-files', '-co', '--exclude-standard', '-z', '.'],
    folder,
  )
  if (!ok) return 0 // not a git checkout: a tarball that exists is taken as it is
  return Math.max(
    0,
    ...files
      .split('\0')
      .filter(Boolean)
      .map((file) => (existsSync(join(folder, file)) ? statSync(join(folder, file)).mtimeMs : 0)),
  )
}

/**
 * The tarballs of every publishable package: those of the step "packs" when they are newer than
 * the package's files, else built and packed here the same way (`pnpm pack` applies
 * publishConfig and replaces `workspace:` ranges).
 */
function freshTarballs(): Map<Publishable, string> {
  mkdirSync(PACKS, { recursive: true })
  const tarballs = new Map<Publishable, string>()
  for (const pkg of publishablePackages()) {
    const file = join(PACKS, pkg.tarball)
    if (!existsSync(file) || statSync(file).mtimeMs < newestSource(pkg.folder)) {
      log(`packing ${pkg.name} (${existsSync(file) ? 'older than its files' : 'no tarball'})`)
      must('pnpm', ['run', 'build'], pkg.folder)
      must('pnpm', ['pack', '--pack-destination', PACKS], pkg.folder)
    }
    tarballs.set(pkg, file)
  }
  return tarballs
}

/** The Markdown files whose blocks are checked: README.md, docs/*.md, packages/*\/README.md. */
function documentation(): string[] {
  const inFolder = (folder: string, pick: (entry: string) => string | undefined) =>
    existsSync(join(ROOT, folder))
      ? readdirSync(join(ROOT, folder))
          .sort()
          .flatMap((entry) => {
            const path = pick(entry)
            return path && existsSync(join(ROOT, path)) ? [path] : []
          })
      : []
  return [
    'README.md',
    ...inFolder('docs', (entry) => (entry.endsWith('.md') ? `docs/${entry}` : undefined)),
    ...inFolder('packages', (entry) => `packages/${entry}/README.md`),
  ]
}

function templateFiles(folder = TEMPLATE, prefix = ''): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) =>
      entry.isDirectory()
        ? templateFiles(join(folder, entry.name), `${prefix}${entry.name}/`)
        : [`${prefix}${entry.name}`],
    )
}

/** Everything the prepared fixture depends on, as one hash. */
function inputsKey(tarballs: Map<Publishable, string>): string {
  const parts = [
    ...[...tarballs.values()].map((file) => sha(readFileSync(file))),
    ...templateFiles().map((file) => sha(readFileSync(join(TEMPLATE, file)))),
    ...documentation().map((file) => sha(readFileSync(join(ROOT, file)))),
    ...['prepare.ts', 'readme-blocks.ts', 'worker-dry-run.ts'].map((file) =>
      sha(readFileSync(join(import.meta.dirname, file))),
    ),
  ]
  return sha(parts.join('\n'))
}

/** Copies the template and the tarballs (named by content, so npm sees a change) in. */
function writeApp(tarballs: Map<Publishable, string>): string {
  for (const generated of ['src', 'readme', 'dist', 'workers'])
    rmSync(join(FIXTURE, generated), { recursive: true, force: true })
  mkdirSync(FIXTURE, { recursive: true })
  cpSync(TEMPLATE, FIXTURE, { recursive: true })
  const packs = join(FIXTURE, 'packs')
  rmSync(packs, { recursive: true, force: true })
  mkdirSync(packs)
  const manifest = JSON.parse(readFileSync(join(TEMPLATE, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>
  }
  for (const [pkg, file] of tarballs) {
    const named = pkg.tarball.replace(/\.tgz$/, `-${sha(readFileSync(file)).slice(0, 12)}.tgz`)
    copyFileSync(file, join(packs, named))
    manifest.dependencies[pkg.name] = `file:packs/${named}`
  }
  const text = `${JSON.stringify(manifest, null, 2)}\n`
  writeFileSync(join(FIXTURE, 'package.json'), text)
  return sha(text)
}

/** `{{unpkg:name}}` in the fixture's HTML → the installed file the package's `unpkg` names. */
function resolveUnpkg(): void {
  for (const page of readdirSync(FIXTURE).filter((file) => file.endsWith('.html'))) {
    const path = join(FIXTURE, page)
    const html = readFileSync(path, 'utf8').replace(/\{\{unpkg:([^}]+)\}\}/g, (_match, name) => {
      const folder = join(FIXTURE, 'node_modules', name)
      const { unpkg } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
        unpkg?: string
      }
      if (!unpkg) throw new Error(`adoption: ${name} has no "unpkg" field (its script-tag build)`)
      if (!existsSync(join(folder, unpkg)))
        throw new Error(`adoption: ${name}'s "unpkg" file ${unpkg} is not in its tarball`)
      return `node_modules/${name}/${unpkg.replace(/^\.\//, '')}`
    })
    writeFileSync(path, html)
  }
}

/** Writes every checked block to readme/; returns them all (skipped ones included). */
function writeBlocks(): ReadmeBlock[] {
  const blocks = documentation().flatMap((file) =>
    readmeBlocks(readFileSync(join(ROOT, file), 'utf8'), file),
  )
  mkdirSync(join(FIXTURE, 'readme'), { recursive: true })
  for (const block of blocks)
    if (!block.skipped)
      writeFileSync(join(FIXTURE, 'readme', blockFileName(block)), blockModule(block))
  return blocks
}

/** tsc's `readme/README-L528.ts(3,5): error …` as `README.md:530:5: error …`. */
function atReadmeLines(output: string, blocks: ReadmeBlock[]): string {
  const byFile = new Map(blocks.map((block) => [`readme/${blockFileName(block)}`, block]))
  return output.replace(/^(readme\/[^(\s]+)\((\d+),(\d+)\)/gm, (whole, file, line, column) => {
    const block = byFile.get(file)
    return block ? `${block.source}:${block.line + Number(line) - 1}:${column}` : whole
  })
}

/** The hls.js files (`node_modules/hls.js/dist/…`) each HTML entry of the build loads. */
export function hlsBuildsPerPage(): Record<string, string[]> {
  const chunks = JSON.parse(readFileSync(join(FIXTURE, 'dist', 'modules.json'), 'utf8')) as {
    fileName: string
    entry: string | null
    imports: string[]
    dynamicImports: string[]
    modules: string[]
  }[]
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]))
  const pages: Record<string, string[]> = {}
  for (const entry of chunks.filter((chunk) => chunk.entry?.endsWith('.html'))) {
    const seen = new Set<string>()
    const hls = new Set<string>()
    const visit = (name: string) => {
      const chunk = byName.get(name)
      if (!chunk || seen.has(name)) return
      seen.add(name)
      for (const id of chunk.modules) {
        const match = /node_modules\/hls\.js\/dist\/([^/?]+)$/.exec(id)
        if (match?.[1]) hls.add(match[1])
      }
      for (const next of [...chunk.imports, ...chunk.dynamicImports]) visit(next)
    }
    visit(entry.fileName)
    pages[(entry.entry ?? '').split('/').pop() ?? ''] = [...hls].sort()
  }
  return pages
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`
}

/**
 * Packs (when needed), installs with npm, type-checks the README blocks and the pages, builds
 * the app and checks its bundles. Throws with the failures (README blocks by file and line).
 *
 * @example
 * ```ts
 * prepare() // then serve FIXTURE: dist/hlsjs.html, dist/hlsjs-light.html, videojs-script.html
 * ```
 */
export function prepare(): void {
  const started = Date.now()
  let at = started
  const tarballs = freshTarballs()
  const key = inputsKey(tarballs)
  const stamp = existsSync(STAMP)
    ? (JSON.parse(readFileSync(STAMP, 'utf8')) as { install?: string })
    : {}
  rmSync(STAMP, { force: true })
  log(`packs ${seconds(at)}; fixture ${FIXTURE}`)

  at = Date.now()
  const install = writeApp(tarballs)
  if (stamp.install !== install || !existsSync(join(FIXTURE, 'node_modules'))) {
    must(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
      FIXTURE,
    )
    log(`npm install ${seconds(at)}`)
  } else log('npm install: unchanged since the last run')
  resolveUnpkg()

  at = Date.now()
  const blocks = writeBlocks()
  const skipped = blocks.filter((block) => block.skipped)
  const failures: string[] = []
  const checked = run(
    join(FIXTURE, 'node_modules', '.bin', 'tsc'),
    ['--noEmit', '-p', '.', '--pretty', 'false'],
    FIXTURE,
  )
  if (!checked.ok)
    failures.push(
      `README blocks or fixture pages do not type-check as an adopter's code:\n${atReadmeLines(checked.output, blocks).trim()}`,
    )
  log(
    `${checked.ok ? 'type-checked' : 'type-check FAILED for'} ${blocks.length - skipped.length} README blocks and the pages in ${seconds(at)}; not checked: ${
      skipped.map((block) => `${block.source}:${block.line} (${block.skipped})`).join(', ') ||
      'none'
    }`,
  )

  // the Workers the documentation prints, built as printed from the installed tarballs
  at = Date.now()
  const workers = documentation().flatMap((file) =>
    workerProjects(readFileSync(join(ROOT, file), 'utf8'), file),
  )
  for (const project of workers) {
    const built = dryRunWorker(ROOT, FIXTURE, project)
    if (built.ok) log(`wrangler deploy --dry-run ${built.summary}`)
    else failures.push(built.failure)
  }
  log(`${workers.length} printed Worker${workers.length === 1 ? '' : 's'} built in ${seconds(at)}`)

  at = Date.now()
  must(join(FIXTURE, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], FIXTURE)
  const pages = hlsBuildsPerPage()
  for (const [page, expected] of Object.entries(HLS_BUILD_OF_PAGE)) {
    const found = pages[page] ?? []
    if (found.length !== 1 || found[0] !== expected)
      failures.push(
        `${page} must bundle hls.js once (dist/${expected}); it loads ${found.join(' + ') || 'none'}`,
      )
  }
  log(
    `vite build ${seconds(at)}; hls.js builds per page: ${Object.entries(pages)
      .map(([page, files]) => `${page} ${files.join()}`)
      .join(', ')}`,
  )
  if (failures.length > 0) {
    // the install stays valid: the next run skips it
    writeFileSync(STAMP, JSON.stringify({ install }))
    throw new PrepareError(failures.map((failure) => `adoption: ${failure}`).join('\n'))
  }
  writeFileSync(STAMP, JSON.stringify({ key, install }))
  log(`ready in ${seconds(started)}`)
}

/**
 * {@link prepare}, unless the fixture was prepared from exactly the current tarballs, template
 * and documentation.
 *
 * @example
 * ```ts
 * test.beforeAll(() => ensurePrepared())
 * ```
 */
export function ensurePrepared(): void {
  const stamp = existsSync(STAMP)
    ? (JSON.parse(readFileSync(STAMP, 'utf8')) as { key?: string })
    : {}
  if (stamp.key && stamp.key === inputsKey(freshTarballs())) return
  try {
    prepare()
  } catch (error) {
    // a README block that does not compile fails the step "adoption", not the playback
    if (!(error instanceof PrepareError)) throw error
    console.warn(`${error.message}\n[adoption] the pages were built: playing them all the same`)
  }
}

if (process.argv[1] === import.meta.filename) {
  try {
    prepare()
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  }
}
