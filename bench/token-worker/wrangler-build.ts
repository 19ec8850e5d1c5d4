import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

// What the workerd and bundle benchmarks share: wrangler itself, and a worker built exactly as
// `wrangler deploy` builds it (wrangler.jsonc: minified), without deploying.
const here = import.meta.dirname
const wrangler = join(here, '..', 'node_modules', '.bin', 'wrangler')
/** The token worker's own wrangler.jsonc: its settings (minify, bindings) are what is measured. */
export const tokenWorkerConfig = fileURLToPath(
  import.meta.resolve('@proj/token-worker/wrangler.jsonc'),
)

/**
 * Runs wrangler on the token worker's wrangler.jsonc; throws with its stderr when it fails.
 *
 * @example
 * ```ts
 * runWrangler(['check', 'startup', '--outfile', 'startup.cpuprofile'])
 * ```
 */
export function runWrangler(args: readonly string[]): string {
  // in the token worker's folder; an entry outside it needs `--config`, or wrangler looks for a
  // config beside the entry
  const done = spawnSync(wrangler, args, {
    cwd: dirname(tokenWorkerConfig),
    encoding: 'utf8',
  })
  if (done.status !== 0) throw new Error(`wrangler ${args.join(' ')}: ${done.stderr}`)
  return done.stdout
}

/** The token worker's Node entry (`node` runs it as a server on `PORT`). */
export const tokenWorkerNode = fileURLToPath(import.meta.resolve('@proj/token-worker/node'))

/** The `compatibility_date` of the token worker's wrangler.jsonc: every benchmark worker runs on it. */
export const compatibilityDate = (
  JSON.parse(readFileSync(tokenWorkerConfig, 'utf8').replace(/^\s*\/\/.*$/gm, '')) as {
    compatibility_date: string
  }
).compatibility_date

/**
 * `wrangler check startup`'s `--args` for a build of `entry` (a file of this folder) with the token
 * worker's settings; none for the token worker itself.
 *
 * @example
 * ```ts
 * runWrangler(['check', 'startup', ...startupArgs('workerd-hello.ts')])
 * ```
 */
export function startupArgs(entry: string | undefined): string[] {
  return entry ? ['--args', `${join(here, entry)} --config ${tokenWorkerConfig}`] : []
}

/** A built worker: its bundle, and the bytes each package contributes to it. */
export interface WorkerBuild {
  script: string
  bytes: number
  byPackage: Map<string, number>
}

interface Metafile {
  outputs: Record<string, { inputs?: Record<string, { bytesInOutput: number }> }>
}

/**
 * Builds a worker into `dir` with `wrangler deploy --dry-run`: the token worker of wrangler.jsonc,
 * or `entry` (a file of this folder) with the same settings.
 *
 * @example
 * ```ts
 * const { bytes } = wranglerBuild('/tmp/out/hello', 'workerd-hello.ts')
 * ```
 */
export function wranglerBuild(dir: string, entry?: string): WorkerBuild {
  const metafile = join(dir, 'meta.json')
  runWrangler([
    'deploy',
    '--dry-run',
    '--outdir',
    dir,
    '--metafile',
    metafile,
    ...(entry ? [join(here, entry), '--config', tokenWorkerConfig] : []),
  ])
  const script = readFileSync(
    join(dir, entry ? basename(entry).replace(/\.ts$/, '.js') : 'worker.js'),
    'utf8',
  )
  const meta = JSON.parse(readFileSync(metafile, 'utf8')) as Metafile
  const inputs = Object.values(meta.outputs).find((o) => o.inputs && Object.keys(o.inputs).length)
  const byPackage = new Map<string, number>()
  for (const [path, { bytesInOutput }] of Object.entries(inputs?.inputs ?? {})) {
    const pkg = path.includes('node_modules/')
      ? (path
          .split('node_modules/')
          .at(-1)
          ?.match(/^(@[^/]+\/[^/]+|[^/]+)/)?.[1] ?? path)
      : (path.match(/(apps|packages)\/[^/]+/)?.[0] ?? path)
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput)
  }
  return { script, bytes: Buffer.byteLength(script), byPackage }
}
