// `pnpm bench`: every benchmark in turn, each writing its section of BENCHMARKS.md (see
// report.ts). BENCH_QUICK=1 (what `npm test` runs): a few samples each, written to
// .tmp/bench/BENCHMARKS.md. `pnpm bench <name>…` runs only those.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

const benches = {
  signing: 'signing.ts',
  'in-process': 'token-worker/in-process.ts',
  http: 'token-worker/http.ts',
  workerd: 'token-worker/workerd.ts',
  edge: 'token-worker/edge.ts',
  sessions: 'token-worker/sessions.ts',
  mpd: 'token-worker/mpd.ts',
  'redis-leaf': 'token-worker/node-redis-leaf.ts',
  'stream-limits': 'token-worker/stream-limits.ts',
  'stream-limits-in-process': 'token-worker/stream-limits-in-process.ts',
  'multi-cdn': 'multi-cdn.ts',
  bundle: 'token-worker/bundle.ts',
  herd: 'herd.ts',
  playback: 'playback/playback.ts',
  'refresh-efficiency': 'playback/refresh-efficiency.ts',
} as const
type BenchName = keyof typeof benches

const names = Object.keys(benches) as BenchName[]
const only = process.argv.slice(2)
const unknown = only.filter((name) => !(name in benches))
if (unknown.length > 0) {
  console.error(`[bench] no benchmark ${unknown.join(', ')}: ${names.join(', ')}`)
  process.exit(2)
}
const started = Date.now()
for (const name of names) {
  if (only.length > 0 && !only.includes(name)) continue
  const script = join(import.meta.dirname, benches[name])
  console.log(`\n[bench] ${name}: node bench/${benches[name]}`)
  const { status } = spawnSync(process.execPath, [script], {
    stdio: 'inherit',
    cwd: import.meta.dirname,
  })
  if (status !== 0) {
    console.error(`[bench] ${name} failed (exit ${status})`)
    process.exit(1)
  }
}
console.log(`\n[bench] done in ${Math.round((Date.now() - started) / 1000)} s`)
