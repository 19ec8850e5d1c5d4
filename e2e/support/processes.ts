// Servers a spec starts and stops itself (a private nginx, token backends, redis-server): one
// child process per server, its output kept for the error that names why it did not come up.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { join } from 'node:path'

/** The repository root. */
export const root = join(import.meta.dirname, '..', '..')

/** A server a spec started: its process and everything it printed so far. */
export interface ChildServer {
  child: ChildProcess
  output: () => string
}

/** What a server needs from the machine, whatever `env` says: the tools' paths (docs/testing.md). */
const MACHINE = ['PATH', 'NGINX_PATH'] as const

/**
 * Runs `script` (relative to the repository root) with this Node and `env` (PATH and NGINX_PATH
 * added).
 *
 * @example
 * ```ts
 * const server = run('e2e/servers/redis.mjs', { REDIS_PORT: '18380', REDIS_DIR: dir })
 * ```
 */
export function run(script: string, env: Record<string, string>): ChildServer {
  const child = spawn(process.execPath, [join(root, script)], {
    env: {
      ...Object.fromEntries(
        MACHINE.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
      ),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  return { child, output: () => output }
}

/**
 * Where {@link freePort} looks: below the kernel's ephemeral range, which outgoing connections
 * (Chromium's, ffmpeg's, every client's) draw their source ports from. A port probed free inside
 * that range can be taken by any connection before the server binds it (nginx then fails with
 * "Address already in use"); below it only another listener can take it, and each Playwright worker
 * probes a block of its own.
 */
const PORT_BLOCK = 500
function portBlock(): { from: number; to: number } {
  let ephemeralFrom = 32768
  try {
    ephemeralFrom =
      Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]) ||
      ephemeralFrom
  } catch {
    // not Linux: the IANA ephemeral range starts at 49152; 32768 is below both
  }
  // the blocks sit under the range, clear of the stack's fixed ports (15173, 18xxx)
  const worker = Number(process.env.TEST_PARALLEL_INDEX ?? 0) % 8
  const to = ephemeralFrom - worker * PORT_BLOCK
  return { from: to - PORT_BLOCK, to }
}
let nextPort = 0

/**
 * A free loopback port, for a server a spec starts itself, so that repeats of the spec running
 * side by side do not meet: the next port of this worker's block (see `portBlock`) that a probe
 * can bind.
 *
 * @example
 * ```ts
 * const port = await freePort()
 * ```
 */
export async function freePort(): Promise<number> {
  const { from, to } = portBlock()
  for (let tried = 0; tried < to - from; tried++) {
    const port = from + (nextPort++ % (to - from))
    const probe = createServer().listen(port, '127.0.0.1')
    const bound = await Promise.race([
      once(probe, 'listening').then(() => true),
      once(probe, 'error').then(() => false),
    ])
    if (bound) {
      await new Promise((resolve) => probe.close(resolve))
      return port
    }
  }
  throw new Error(`freePort: no free port in ${from}-${to - 1}`)
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Waits (10 s at most) until `url` answers 2xx, or throws with the server's output.
 *
 * @example
 * ```ts
 * await waitFor('http://127.0.0.1:18804/token?video=ready', server)
 * ```
 */
export async function waitFor(url: string, { child, output }: ChildServer): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: exited\n${output()}`)
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    )
    if (ok) return
    await pause(100)
  }
  throw new Error(`${url} did not come up\n${output()}`)
}

/**
 * Waits (10 s at most) until a loopback `port` accepts connections (a server that speaks no
 * HTTP), or throws with the server's output.
 *
 * @example
 * ```ts
 * await waitForPort(18380, server)
 * ```
 */
export async function waitForPort(port: number, { child, output }: ChildServer): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`port ${port}: exited\n${output()}`)
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await pause(100)
  }
  throw new Error(`port ${port} did not open\n${output()}`)
}

/**
 * Stops a server (SIGTERM) and waits until it has exited.
 *
 * @example
 * ```ts
 * await stop(server.child)
 * ```
 */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}
