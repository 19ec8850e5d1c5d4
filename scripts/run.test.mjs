// The bootstrap's command form as `pnpm e2e` meets it (under pnpm: no bootstrap, the command at
// once): its standard output untouched, its arguments as given, its exit status passed on. The
// npm side (pinned pnpm, install) is what `npm test` itself runs through.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const RUN = join(import.meta.dirname, 'run.mjs')
const underPnpm = { ...process.env, npm_config_user_agent: 'pnpm/12.21.0 npm/? node/v24.0.0' }
const run = (args) =>
  spawnSync(process.execPath, [RUN, ...args], { encoding: 'utf8', env: underPnpm })

describe('run.mjs -- <command>', () => {
  it('runs the command with its arguments as given; standard output is the command’s alone', () => {
    const result = run([
      '--',
      process.execPath,
      '-p',
      'process.argv.slice(1).join("|")',
      'a b',
      '--x',
    ])
    expect(result.stdout).toBe('a b|--x\n')
    expect(result.status).toBe(0)
  })

  it('passes the exit status on, and says when the command is not found', () => {
    expect(run(['--', process.execPath, '-e', 'process.exit(3)']).status).toBe(3)
    const missing = run(['--', 'no-such-command-here'])
    expect(missing.status).toBe(127)
    expect(missing.stderr).toContain('[run] no-such-command-here: not found')
  })

  it('sets wrangler’s offline settings for the command', () => {
    const result = run(['--', process.execPath, '-p', 'process.env.WRANGLER_SEND_METRICS'])
    expect(result.stdout).toBe('false\n')
  })

  it('refuses a missing command with its usage, exit 2', () => {
    const result = run(['--'])
    expect(result.status).toBe(2)
    expect(result.stderr).toContain('usage: node scripts/run.mjs <script>')
  })
})
