import { createHash } from 'node:crypto'
import { Bench } from 'tinybench'
import { createTokenRecord } from '../src/record.ts'
import { signToken } from '../src/token.ts'

// Baseline in the same run: node:crypto's native MD5 of the same text. spark-md5 is pure JS (it
// must run in browsers and workerd alike), so the question is how far from native it is.
const text = '12345_demo_s3cr3t_1800000600_203.0.113.7'
const config = {
  clientId: '12345',
  secretKey: 's3cr3t',
  cdnDomain: 'cdn.example.com',
  cdnDomainIp: 'cdn-ip.example.com',
}

const time = Number(process.env.BENCH_MS ?? 1000)
const bench = new Bench({ time })
bench
  .add('baseline: node:crypto md5 → base64url', () => {
    createHash('md5').update(text).digest('base64url')
  })
  .add('signToken (spark-md5)', () => {
    signToken({
      clientId: '12345',
      video: 'demo',
      secret: 's3cr3t',
      expires: 1_800_000_600,
      ip: '203.0.113.7',
    })
  })
  .add('createTokenRecord (2 tokens, IP check, 2 URLs)', () => {
    createTokenRecord(
      config,
      { video: 'demo', type: 'vod', expire: '600', clientIp: '203.0.113.7' },
      { nowSeconds: 1_800_000_000 },
    )
  })
await bench.run()

const stats = (task: (typeof bench.tasks)[number]) => {
  const result = task.result
  if (!result || !('throughput' in result)) throw new Error(`${task.name} did not complete`)
  return { ops: result.throughput.mean, meanMs: result.latency.mean }
}
const base = stats(bench.tasks[0] as (typeof bench.tasks)[number]).ops
console.log(`\nNode ${process.version}, ${time} ms per task\n`)
console.log('| task | ops/s | vs baseline | mean µs |\n|---|---:|---:|---:|')
for (const task of bench.tasks) {
  const { ops, meanMs } = stats(task)
  console.log(
    `| ${task.name} | ${Math.round(ops).toLocaleString('en')} | ${((ops / base) * 100).toFixed(0)} % | ${(meanMs * 1000).toFixed(2)} |`,
  )
}
