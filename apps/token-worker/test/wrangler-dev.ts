import { type ChildProcess, spawn } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')

/** A `wrangler dev` of this folder a test started, and what it printed so far. */
export interface WranglerDev {
  output: () => string
  /** Stops it and the workerd it spawned (its process group). */
  stop: () => void
}

/**
 * Starts `wrangler dev` of this folder on a loopback `port` with extra arguments (an env file,
 * its own inspector port and state when several run side by side), without telemetry, and waits
 * until it is ready (60 s at most). Call it from `beforeAll` with a 70-s timeout.
 *
 * @example
 * ```ts
 * const dev = await startWranglerDev(18788, ['--env-file', '.dev.vars.example'])
 * afterAll(() => dev.stop())
 * ```
 */
export async function startWranglerDev(port: number, args: string[]): Promise<WranglerDev> {
  const bin = join(realpathSync(join(root, 'node_modules', 'wrangler')), 'bin', 'wrangler.js')
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, 'dev', '--ip', '127.0.0.1', '--port', String(port), ...args],
    {
      cwd: root,
      detached: true,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
    },
  )
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  for (let i = 0; i < 240 && !output.includes('Ready on'); i++)
    await new Promise((resolve) => setTimeout(resolve, 250))
  return {
    output: () => output,
    stop: () => {
      if (child.pid) process.kill(-child.pid, 'SIGTERM')
    },
  }
}
