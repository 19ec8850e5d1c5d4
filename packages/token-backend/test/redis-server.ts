import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { type RedisCommandClient, redisCommand } from '../src/redis/redis-command.ts'
import { StoreUnavailableError } from '../src/store-unavailable.ts'

/** A real Debian `redis-server` of a Node test, on one loopback port for its whole life. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** Starts it again after {@link RedisServer.stop}: empty (no persistence), on the same port. */
  start(): Promise<void>
  /** Kills it as a crash would (SIGKILL: no goodbye to the clients). */
  stop(): Promise<void>
  /** Freezes it (SIGSTOP: connections stay open, nothing is answered) until `resume`. */
  pause(): void
  /** Lets a paused server run again: it then reads what was sent meanwhile. */
  resume(): void
}

/**
 * A free loopback port (another process may take it before it is used: good enough here).
 *
 * @example
 * ```ts
 * const nobody = `redis://127.0.0.1:${await freePort()}`
 * ```
 */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const { port } = probe.address() as { port: number }
  probe.close()
  return port
}

// Every redis-server a test process started and has not stopped: killed when the process ends
// (a hook that timed out while one was starting must not leave it running after the worker).
// Vitest ends its workers with SIGTERM, after which no 'exit' event runs without a handler.
const running = new Set<ChildProcess>()
const killRunning = () => {
  for (const child of running) child.kill('SIGKILL')
}
process.once('exit', killRunning)
process.once('SIGTERM', () => {
  killRunning()
  process.exit(143)
})

/**
 * Starts `redis-server` on a free loopback port, without persistence, and waits until it accepts
 * connections. Stop it in `afterAll`.
 *
 * @example
 * ```ts
 * const redis = await startRedisServer()
 * const client = await connectRedis(redis.url)
 * afterAll(() => redis.stop())
 * ```
 */
export async function startRedisServer(extra: ReadonlyArray<string> = []): Promise<RedisServer> {
  const port = await freePort()
  let server: ChildProcess | undefined
  const start = async () => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
    args.push(...extra)
    // stderr piped, not inherited: a server left running must not hold the test runner's own
    // output open (vitest waits for it to close before it exits)
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    running.add(child)
    child.once('exit', () => running.delete(child))
    let output = ''
    const read = (chunk: Buffer) => {
      output += chunk.toString()
    }
    child.stdout?.on('data', read)
    child.stderr?.on('data', read)
    const deadline = Date.now() + 10_000
    while (!output.includes('Ready to accept connections')) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL')
        throw new Error(`redis-server did not start:\n${output}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    server = child
  }
  const stop = async () => {
    const child = server
    server = undefined
    if (!child || child.exitCode !== null) return
    child.kill('SIGKILL')
    await once(child, 'exit')
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    pause: () => server?.kill('SIGSTOP'),
    resume: () => server?.kill('SIGCONT'),
  }
}

/**
 * Waits until every client answers again (they reconnect on their own after a restart).
 *
 * @example
 * ```ts
 * await redis.start()
 * await reconnected([client])
 * ```
 */
export async function reconnected(
  clients: ReadonlyArray<RedisCommandClient>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      for (const client of clients) await redisCommand(client, ['PING'], 500)
      return
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) || Date.now() > deadline) throw err
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}
