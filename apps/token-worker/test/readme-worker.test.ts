import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

// The custom-logic Worker of docs/authorization.md (the ```ts title="src/worker.ts" block) is what
// `wrangler deploy --dry-run` bundles here, with this folder's wrangler.jsonc: its Durable Object
// export included. A README edit that breaks the Worker fails npm test, not a deploy.
const root = join(import.meta.dirname, '..')
const MARKER = '```ts title="src/worker.ts"'

/** The body of the README block fenced with {@link MARKER}; exactly one must exist. */
function readmeWorker(): string {
  const readme = readFileSync(join(root, '..', '..', 'docs', 'authorization.md'), 'utf8')
  const blocks = readme.split(MARKER)
  expect(blocks, `docs/authorization.md has one ${MARKER} block`).toHaveLength(2)
  const body = (blocks[1] ?? '').split('\n```')[0] ?? ''
  return body.replace(/^\n/, '')
}

// Under the app's node_modules, so '@proj/token-backend' resolves as it does for src/worker.ts.
const scratch = mkdtempSync(join(root, 'node_modules', '.readme-worker-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const shipped = JSON.parse(
  readFileSync(join(root, 'wrangler.jsonc'), 'utf8').replace(/^\s*\/\/.*$/gm, ''),
) as Record<string, unknown>

/** `wrangler deploy --dry-run` of `code` as the Worker's main, with the shipped configuration. */
async function dryRun(name: string, code: string) {
  const folder = mkdtempSync(join(scratch, `${name}-`))
  writeFileSync(join(folder, 'worker.ts'), code)
  const { $schema: _schema, ...config } = shipped
  writeFileSync(join(folder, 'wrangler.json'), JSON.stringify({ ...config, main: 'worker.ts' }))
  // wrangler's own script on this Node (the shell shim would take the PATH's)
  const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js')
  const args = ['deploy', '--dry-run', '--outdir', join(folder, 'dist')]
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [wrangler, ...args, '--config', join(folder, 'wrangler.json')],
      {
        cwd: folder,
        env: {
          ...process.env,
          // offline: no telemetry, no cf.json fetch (as readme.test.ts; npm test sets them too)
          WRANGLER_SEND_METRICS: 'false',
          CLOUDFLARE_CF_FETCH_ENABLED: 'false',
          NO_COLOR: '1',
        },
      },
    )
    return { ok: true, output: stdout + stderr }
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    return { ok: false, output: stdout + stderr }
  }
}

describe('the README custom-logic Worker', { timeout: 30_000 }, () => {
  const code = readmeWorker()

  it('is what `wrangler deploy --dry-run` bundles with wrangler.jsonc', async () => {
    expect(code).toContain('createTokenApp<Env>({')
    expect(code).toMatch(
      /^export \{ SessionRegistry \} from '@proj\/token-backend\/session-registry'$/m,
    )
    const run = await dryRun('as-written', code)
    expect(run.ok, run.output).toBe(true)
    expect(run.output).toContain('--dry-run: exiting now.')
  })

  it('without its Durable Object export, the same check fails naming SessionRegistry', async () => {
    const withoutExport = code.replace(/^export \{ SessionRegistry \}.*$/m, '')
    expect(withoutExport).not.toContain('SessionRegistry')
    const run = await dryRun('without-export', withoutExport)
    expect(run.ok, run.output).toBe(false)
    expect(run.output).toContain('which are not exported in your entrypoint file: SessionRegistry')
  })
})
