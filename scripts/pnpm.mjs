#!/usr/bin/env node
// Runs pnpm, rerunning it when it dies on ERR_PNPM_BAD_CONFIG_DEP.
// pnpm 12 resolves every platform build of its own pinned version before it starts and, at random
// (about one run in ten here), fails when the registry lacks one of them (@pnpm/exe.netbsd-x64).
// It fails before doing anything, so rerunning is safe; any other failure passes through untouched.
// Imported by run.mjs and check.mjs; executed directly, it is the `pnpm` shim run.mjs puts on PATH.
import { spawn } from 'node:child_process'

const ATTEMPTS = 5
// How deep shims may call shims. pnpm scripts that call pnpm nest a few levels; a shim that finds
// itself as "pnpm" on PATH (no PROJ_REAL_PNPM) would otherwise call itself until the machine is full.
const MAX_DEPTH = 8
const depth = Number(process.env.PROJ_PNPM_SHIM_DEPTH ?? 0)

/** The pnpm binary: the one run.mjs chose, the one running this script, or the one on PATH. */
const realPnpm = () =>
  process.env.PROJ_REAL_PNPM ??
  (/pnpm/.test(process.env.npm_execpath ?? '') ? process.env.npm_execpath : 'pnpm')

const attempt = (args, options) =>
  new Promise((resolve) => {
    const env = { ...(options.env ?? process.env), PROJ_PNPM_SHIM_DEPTH: String(depth + 1) }
    const child = spawn(realPnpm(), args, {
      ...options,
      env,
      stdio: ['inherit', 'inherit', 'pipe'],
    })
    let seen = ''
    child.stderr.on('data', (chunk) => {
      if (seen.length < 8192) seen += chunk
      process.stderr.write(chunk)
    })
    const forward = (signal) => child.kill(signal)
    process.on('SIGINT', forward)
    process.on('SIGTERM', forward)
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward)
      process.off('SIGTERM', forward)
      const status = code ?? (signal ? 1 : 0)
      resolve({ status, flaky: status !== 0 && seen.includes('ERR_PNPM_BAD_CONFIG_DEP') })
    })
  })

/**
 * Runs `pnpm ...args` and resolves with its exit status.
 * @param {string[]} args
 * @param {import('node:child_process').SpawnOptions} [options]
 */
export const runPnpm = async (args, options = {}) => {
  for (let i = 1; ; i++) {
    const { status, flaky } = await attempt(args, options)
    if (!flaky || i === ATTEMPTS) return status
    process.stderr.write(
      `[pnpm] failed resolving its own pin (registry gap); retrying (${i}/${ATTEMPTS - 1})\n`,
    )
    await new Promise((resolve) => setTimeout(resolve, 300 * i))
  }
}

if (import.meta.filename === process.argv[1]) {
  if (depth >= MAX_DEPTH) {
    process.stderr.write(
      `[pnpm] the pnpm shim called itself ${depth} times: set PROJ_REAL_PNPM to the real pnpm (npm test does)\n`,
    )
    process.exit(2)
  }
  process.exit(await runPnpm(process.argv.slice(2)))
}
