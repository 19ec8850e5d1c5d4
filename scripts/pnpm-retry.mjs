#!/usr/bin/env node
// `pnpm` as seen by every script under scripts/run.mjs (it is first on PATH there).
// pnpm 12 resolves every platform build of its own pinned version before it starts, and at random
// (about one run in ten here) fails with ERR_PNPM_BAD_CONFIG_DEP when the registry lacks one of them
// (@pnpm/exe.netbsd-x64). It fails before doing anything, so rerunning is safe; any other failure
// passes through untouched.
import { spawn } from 'node:child_process'

const real = process.env.PROJ_REAL_PNPM
if (!real) {
  console.error('pnpm-retry: PROJ_REAL_PNPM is not set (run through scripts/run.mjs)')
  process.exit(2)
}
const ATTEMPTS = 5

const attempt = () =>
  new Promise((resolve) => {
    const child = spawn(real, process.argv.slice(2), { stdio: ['inherit', 'inherit', 'pipe'] })
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
      resolve({
        code: code ?? (signal ? 1 : 0),
        flaky: code !== 0 && seen.includes('ERR_PNPM_BAD_CONFIG_DEP'),
      })
    })
  })

for (let i = 1; ; i++) {
  const { code, flaky } = await attempt()
  if (!flaky || i === ATTEMPTS) process.exit(code)
  process.stderr.write(
    `pnpm-retry: pnpm failed resolving its own pin (registry gap); retrying (${i}/${ATTEMPTS - 1})\n`,
  )
  await new Promise((resolve) => setTimeout(resolve, 300 * i))
}
