import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { median, quick, report, stamp, table } from '../report.ts'
import { runWrangler, startupArgs, wranglerBuild } from './wrangler-build.ts'

// The deployable bundle as `wrangler deploy` builds it (minified, wrangler.jsonc), its largest
// inputs from esbuild's metafile, and startup time as `wrangler check startup` profiles it on
// this machine; the hello-world Hono worker alongside as the baseline.
const RUNS = Number(process.env.BENCH_RUNS ?? (quick ? 1 : 5))
const out = mkdtempSync(join(tmpdir(), 'bundle-bench-'))

interface Profile {
  nodes: { id: number; callFrame: { functionName: string } }[]
  samples: number[]
  timeDeltas: number[]
}
/**
 * Startup CPU of one profile: the samples that fall in JavaScript or the garbage collector
 * (not idle, not "(program)", which holds the profiler's own start), times the sampling interval.
 */
const startupMs = (entry: string | undefined) => {
  const profile = join(out, 'startup.cpuprofile')
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    // wrangler builds the worker as `wrangler deploy` would, then profiles its startup
    runWrangler(['check', 'startup', '--outfile', profile, ...startupArgs(entry)])
    const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(profile, 'utf8')) as Profile
    const skipped = new Set(
      nodes
        .filter((n) => ['(idle)', '(program)', '(root)'].includes(n.callFrame.functionName))
        .map((n) => n.id),
    )
    const interval = median(timeDeltas.slice(1)) / 1000
    times.push(samples.filter((id) => !skipped.has(id)).length * interval)
  }
  return median(times)
}

try {
  const token = wranglerBuild(join(out, 'token'))
  const hello = wranglerBuild(join(out, 'hello'), 'workerd-hello.ts')
  const rows = [
    ['baseline: hello-world Hono worker', hello, 'workerd-hello.ts'],
    ['token worker (`wrangler deploy` bundle)', token, undefined],
  ] as const
  const startups = rows.map(([, , entry]) => startupMs(entry))
  const kib = (bytes: number) => (bytes / 1024).toFixed(1)
  const largest = [...token.byPackage]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([pkg, bytes]) => `${pkg} ${kib(bytes)}`)
    .join(', ')
  report(
    'bundle',
    `${stamp(`wrangler deploy --dry-run (minified, as wrangler.jsonc says); startup: wrangler check startup, JavaScript and GC samples × the ~1 ms sampling interval, median of ${RUNS}`)}

${table(
  ['worker', 'minified KiB', 'startup CPU ms'],
  rows.map(([name, b], i) => [name, kib(b.bytes), (startups[i] ?? Number.NaN).toFixed(1)]),
)}

Largest inputs of the token worker (KiB in the output): ${largest}.

Goal (issue 12): ≤ 50 KiB minified: **${kib(token.bytes)} KiB**, ${token.bytes <= 50 * 1024 ? 'met' : 'not met (what it is made of: above; why: below)'}. Startup is profiled on this machine's workerd, not Cloudflare's (wrangler says so too): compare it with the baseline's.`,
  )
} finally {
  rmSync(out, { recursive: true, force: true })
}
