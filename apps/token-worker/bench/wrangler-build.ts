import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { basename, join } from 'node:path'

// What the workerd and bundle benchmarks share: wrangler itself, and a worker built exactly as
// `wrangler deploy` builds it (wrangler.jsonc: minified), without deploying.
const cwd = join(import.meta.dirname, '..')
const wrangler = join(cwd, 'node_modules', '.bin', 'wrangler')

/**
 * Runs wrangler in the token worker's folder; throws with its stderr when it fails.
 *
 * @example
 * ```ts
 * runWrangler(['check', 'startup', '--outfile', 'startup.cpuprofile'])
 * ```
 */
export const runWrangler = (args: readonly string[]): string => {
  const done = spawnSync(wrangler, args, { cwd, encoding: 'utf8' })
  if (done.status !== 0) throw new Error(`wrangler ${args.join(' ')}: ${done.stderr}`)
  return done.stdout
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
 * or `entry` (a path relative to the token worker's folder) with the same settings.
 *
 * @example
 * ```ts
 * const { bytes } = wranglerBuild('/tmp/out/hello', 'bench/workerd-hello.ts')
 * ```
 */
export const wranglerBuild = (dir: string, entry?: string): WorkerBuild => {
  const metafile = join(dir, 'meta.json')
  runWrangler([
    'deploy',
    '--dry-run',
    '--outdir',
    dir,
    '--metafile',
    metafile,
    ...(entry ? [entry] : []),
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
