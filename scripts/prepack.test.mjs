import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const script = join(import.meta.dirname, 'prepack.mjs')
const rootLicense = readFileSync(join(import.meta.dirname, '..', 'LICENSE'), 'utf8')
const folders = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

/** Runs the prepack step in a package folder as `<agent> <command>` would. */
function prepack(manifest, agent, command = 'pack') {
  const folder = mkdtempSync(join(tmpdir(), 'prepack-'))
  folders.push(folder)
  writeFileSync(join(folder, 'package.json'), JSON.stringify(manifest))
  const env = { ...process.env, npm_config_user_agent: agent, npm_command: command }
  const run = spawnSync(process.execPath, [script], { cwd: folder, env, encoding: 'utf8' })
  return { ...run, license: join(folder, 'LICENSE') }
}

const adapter = {
  name: '@proj/example',
  exports: { '.': './src/index.ts' },
  publishConfig: { exports: { '.': './dist/index.js' } },
  dependencies: { '@proj/token-refresh': 'workspace:^', 'spark-md5': '^3.0.2' },
}

describe('prepack', () => {
  it('refuses npm, naming what it would ship and the commands to use instead', () => {
    const run = prepack(adapter, 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false', 'publish')
    expect(run.status).toBe(1)
    expect(run.stderr).toBe(
      [
        '@proj/example: `npm publish` refused: it would ship this package.json as it is, with',
        "  - the development exports, not publishConfig's (./src/index.ts)",
        '  - ranges no registry resolves: @proj/token-refresh@workspace:^',
        'pnpm applies publishConfig and replaces workspace: ranges. Use `pnpm pack` in this folder',
        'for a tarball, or `pnpm release` at the repository root to publish (README.md, "Releasing").',
        '',
      ].join('\n'),
    )
    expect(existsSync(run.license)).toBe(false)
  })

  it('refuses yarn and a client that does not say who it is', () => {
    expect(prepack(adapter, 'yarn/4.9.0 npm/? node/v24.21.0 linux x64').status).toBe(1)
    expect(prepack(adapter, '').stderr).toContain('`this client pack` refused')
  })

  it('lets pnpm pack, with the root LICENSE copied into the package', () => {
    const run = prepack(adapter, 'pnpm/12.21.0 npm/? node/v24.21.0 linux x64')
    expect(run.status, run.stderr).toBe(0)
    expect(readFileSync(run.license, 'utf8')).toBe(rootLicense)
  })
})
