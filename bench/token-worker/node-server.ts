import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { pinnedCommand } from './cpu-affinity.ts'

/**
 * Starts a Node entry (a server) with `env` on `port` and resolves once it answers HTTP. Its
 * stdout (audit lines) goes to /dev/null: read through a pipe by the bench's process, it would
 * take CPU from the load generator. `cpuList` pins it to those CPUs (`cpuSplit`).
 *
 * @example
 * ```ts
 * const server = await startNodeServer('src/node.ts', 18902, { CLIENT_ID: '12345', … })
 * ```
 */
export async function startNodeServer(
  entry: string,
  port: number,
  env: Record<string, string>,
  cpuList?: string,
): Promise<ChildProcess> {
  const sink = openSync('/dev/null', 'w')
  const child = spawn(...pinnedCommand(cpuList, [process.execPath, entry]), {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', sink, 'inherit'],
  })
  closeSync(sink)
  let exited: number | null | undefined
  child.on('exit', (code) => {
    exited = code
  })
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    if (exited !== undefined) throw new Error(`${entry} exited with ${exited}`)
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    )
    if (up) return child
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  child.kill()
  throw new Error(`${entry} did not listen on ${port} within 10 s`)
}
