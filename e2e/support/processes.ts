// Servers a spec starts and stops itself (a private nginx, token backends, redis-server): one
// child process per server, its output kept for the error that names why it did not come up.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
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

/** A free loopback port below the ephemeral range, from this Playwright worker's block. */
export { freePort } from '@proj/stack'

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
