// The Workers the documentation prints, built as printed (issue 31): each section with a block
// named `// wrangler.jsonc` (readme-blocks.ts, workerProjects) becomes a folder of the adoption
// fixture holding exactly the files its blocks name, resolving `@proj/*` from the fixture's
// node_modules (the packed tarballs installed with npm), and `wrangler deploy --dry-run` bundles
// and validates it there: a missing `name`, an unexported Durable Object class or an import the
// package does not have fails the step, named by file and line.
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import type { WorkerProject } from './readme-blocks.ts'

/** What building one printed Worker gave: a line for the log, or the failure. */
export type DryRun = { ok: true; summary: string } | { ok: false; failure: string }

/** The wrangler of the repository's deployable (apps/token-worker): the version it is tested with. */
function wranglerBin(root: string): string {
  const require = createRequire(join(root, 'apps', 'token-worker', 'package.json'))
  const manifest = require.resolve('wrangler/package.json')
  const { bin } = require(manifest) as { bin: Record<string, string> }
  return join(dirname(manifest), bin.wrangler ?? 'bin/wrangler.js')
}

/**
 * Writes `project`'s files into `fixture`/workers/… and runs `wrangler deploy --dry-run` there
 * with this Node; the summary names the upload size and the bindings wrangler reports.
 *
 * @example
 * ```ts
 * const run = dryRunWorker(ROOT, FIXTURE, project)
 * if (!run.ok) failures.push(run.failure)
 * ```
 */
export function dryRunWorker(root: string, fixture: string, project: WorkerProject): DryRun {
  const where = `${project.source}:${project.line} ("${project.section}")`
  const folder = join(
    fixture,
    'workers',
    `${project.source.replace(/\.md$/i, '').replace(/[^A-Za-z0-9]+/g, '-')}-L${project.line}`,
  )
  rmSync(folder, { recursive: true, force: true })
  for (const file of project.files) {
    mkdirSync(dirname(join(folder, file.path)), { recursive: true })
    writeFileSync(join(folder, file.path), `${file.code}\n`)
  }
  const run = spawnSync(
    process.execPath,
    [wranglerBin(root), 'deploy', '--dry-run', '--outdir', 'dist'],
    {
      cwd: folder,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? folder,
        WRANGLER_SEND_METRICS: 'false',
        CLOUDFLARE_CF_FETCH_ENABLED: 'false',
        WRANGLER_HIDE_BANNER: 'true',
        WRANGLER_LOG_PATH: join(folder, '.wrangler', 'logs'),
        NO_COLOR: '1',
      },
      timeout: 120_000,
    },
  )
  // wrangler colours its errors whatever NO_COLOR says: the log gets the text
  const output = stripVTControlCharacters(
    `${run.stdout ?? ''}${run.stderr ?? ''}${run.error?.message ?? ''}`,
  )
  if (run.status !== 0)
    return {
      ok: false,
      failure: `${where}: the Worker of ${project.files.map((file) => file.path).join(' + ')} does not deploy as printed (wrangler deploy --dry-run in ${folder}):\n${output.trim()}`,
    }
  const upload = /Total Upload: ([^\n]+)/.exec(output)?.[1] ?? 'size not reported'
  const bindings = [...output.matchAll(/^env\.(\w+) \(.*?\)\s+(Durable Object|Rate Limit|KV|R2)/gm)]
    .map((match) => match[1])
    .join(', ')
  return { ok: true, summary: `${where}: ${upload}; bindings ${bindings || 'none'}` }
}
