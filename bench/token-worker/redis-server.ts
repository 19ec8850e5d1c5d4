import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { freePort } from '@proj/stack'

/** A throwaway `redis-server` of one benchmark run, on a loopback port. */
export interface BenchRedis {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** The version its start banner names (`Redis version=7.0.15, …`). */
  readonly version: string
  /** Its process, for the CPU time it takes. */
  readonly pid: number
  /** Stops it (SIGTERM: without persistence, nothing is written) and waits for its exit. */
  stop(): Promise<void>
}

/** Where the Debian package puts it; `REDIS_SERVER` names another binary. */
export const redisServerBinary = process.env.REDIS_SERVER ?? '/usr/bin/redis-server'

/**
 * A free loopback port below the kernel's ephemeral range (`@proj/stack`), so that no outgoing
 * connection of the run takes it before the server binds it; re-exported for the benchmarks that
 * import it from here.
 */
export { freePort }

/**
 * Starts `redis-server` on a free loopback port without persistence (`--save ''
 * --appendonly no`) and resolves once it accepts connections; `undefined` when the binary is not
 * installed, so the benchmark can skip its Redis rows instead of failing.
 *
 * @example
 * ```ts
 * const redis = await startBenchRedis()
 * if (redis === undefined) console.log('no redis-server: skipped')
 * else await redis.stop()
 * ```
 */
export async function startBenchRedis(): Promise<BenchRedis | undefined> {
  if (!existsSync(redisServerBinary)) return undefined
  const port = await freePort()
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
  const child = spawn(redisServerBinary, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const deadline = Date.now() + 10_000
  while (!output.includes('Ready to accept connections')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`redis-server did not start:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  // its log is not read past the start: drained, so a full pipe never blocks it
  child.stdout.resume()
  const version = /version=([\d.]+)/.exec(output)?.[1] ?? 'unknown'
  return {
    url: `redis://127.0.0.1:${port}`,
    version,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    },
  }
}
