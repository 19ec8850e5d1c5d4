// Every service of the local stack, as a function of its ports: what `npm start` runs
// (local-stack.ts) and what the e2e suite starts under Playwright (e2e/support/stack.ts).
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import wranglerEnv from './wrangler-env.json' with { type: 'json' }

/** The repository root: services' folders are relative to it. */
export const ROOT = join(import.meta.dirname, '..')

/**
 * wrangler without telemetry or Cloudflare lookups: nothing here needs Cloudflare's network.
 * (A JSON file, so scripts/run.mjs can apply it before anything is installed.)
 */
export const WRANGLER_ENV: Readonly<Record<string, string>> = wranglerEnv

/** One process of the stack and how to tell it is up. */
export interface Service {
  name: string
  /** Its folder, relative to the repository root. */
  cwd: string
  /** argv: Node running a script directly, so stopping the process group stops its children. */
  command: string[]
  env: Record<string, string>
  /** Answers (any status) once the service is up. */
  readyUrl: string
  /** What `npm start` prints to try it. */
  tryUrl?: string
  example?: string
  /** `npm start`: create `.dev.vars` from `.dev.vars.example` when missing. */
  devVars?: boolean
  /** Variables taken from another service's env file (the CDN emulator shares the token worker's secret). */
  envFrom?: { file: string; keys: string[] }
}

/**
 * `[node, script]` of a package's bin script, run by this Node directly rather than through a
 * shim, so stopping the process (or its group) also stops what it spawned (wrangler's workerd).
 *
 * @example
 * ```ts
 * binCommand('apps/demo', 'vite', 'bin/vite.js') // [process.execPath, '/…/vite/bin/vite.js']
 * ```
 */
export function binCommand(cwd: string, pkg: string, script: string): [string, string] {
  return [process.execPath, join(realpathSync(join(ROOT, cwd, 'node_modules', pkg)), script)]
}

/**
 * A worker under `wrangler dev` on `port` (its devtools on `port + 1000`: each wrangler dev
 * needs its own, or the second one fails to start). `envFile` replaces the folder's `.dev.vars`.
 *
 * @example
 * ```ts
 * wranglerDev('apps/token-worker', 8787, { envFile: '/tmp/vars' })
 * ```
 */
export function wranglerDev(
  cwd: 'apps/token-worker' | 'apps/api-worker',
  port: number,
  options: { envFile?: string } = {},
): Pick<Service, 'cwd' | 'command' | 'env'> {
  return {
    cwd,
    command: [
      ...binCommand(cwd, 'wrangler', 'bin/wrangler.js'),
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(port + 1000),
      ...(options.envFile ? ['--env-file', options.envFile] : []),
    ],
    env: { ...WRANGLER_ENV },
  }
}

/**
 * The token worker (`GET /token`, `GET /session`) on `port`.
 *
 * @example
 * ```ts
 * tokenWorker({ port: 8787 })
 * ```
 */
export function tokenWorker(at: { port: number; envFile?: string }): Service {
  const base = `http://127.0.0.1:${at.port}`
  return {
    name: 'token-worker',
    ...wranglerDev('apps/token-worker', at.port, at.envFile ? { envFile: at.envFile } : {}),
    devVars: at.envFile === undefined,
    readyUrl: `${base}/token?video=ready`,
    tryUrl: `${base}/token`,
    example: `curl '${base}/token?video=demo&type=vod&expire=600'; curl '${base}/session?video=demo&type=vod'`,
  }
}

/**
 * The vendor API emulator on `port`.
 *
 * @example
 * ```ts
 * apiWorker({ port: 8788 })
 * ```
 */
export function apiWorker(at: { port: number }): Service {
  const base = `http://127.0.0.1:${at.port}`
  return {
    name: 'api-worker',
    ...wranglerDev('apps/api-worker', at.port),
    devVars: true,
    readyUrl: `${base}/openapi.json`,
    tryUrl: `${base}/openapi.json`,
    example: `curl -H 'Authorization: APIKey dev-client-key' '${base}/cloud/v1/availablenetworks/1/1?limit=2'`,
  }
}

/**
 * The CDN emulator (and the origin it serves from), configured by `env` and `envFrom`
 * (SECRET_KEY, CDN_DOMAIN, CDN_DOMAIN_IP, ORIGIN_PORT: see apps/cdn-emulator).
 *
 * @example
 * ```ts
 * cdnEmulator({ env: { SECRET_KEY: 's' }, readyUrl: 'http://127.0.0.1:8080/' })
 * ```
 */
export function cdnEmulator(
  at: Pick<Service, 'env' | 'readyUrl'> & Partial<Pick<Service, 'tryUrl' | 'envFrom'>>,
): Service {
  return {
    name: 'cdn-emulator',
    cwd: 'apps/cdn-emulator',
    command: [process.execPath, 'src/main.ts'],
    ...at,
  }
}

/**
 * The demo page on `port`: vite's dev server, or (`build: true`) a production build served by
 * `vite preview`, which never re-optimises dependencies and reloads mid-test.
 *
 * @example
 * ```ts
 * demo({ port: 5173, build: false })
 * ```
 */
export function demo(at: { port: number; build: boolean }): Service {
  const url = `http://127.0.0.1:${at.port}/`
  return {
    name: 'demo',
    cwd: 'apps/demo',
    command: at.build
      ? viteBuildAndPreview('apps/demo')
      : [...binCommand('apps/demo', 'vite', 'bin/vite.js'), '--clearScreen', 'false'],
    env: { DEMO_PORT: String(at.port) },
    readyUrl: url,
    tryUrl: url,
    example: `open ${url}?expire=20&lead=6 (all five players, token countdowns, "play anywhere")`,
  }
}

/**
 * A page as production serves it: `vite build`, then `vite preview` of the build (the process
 * that stays), both with `args` (e.g. `--config`), in the workspace folder `cwd`.
 *
 * @example
 * ```ts
 * viteBuildAndPreview('bench', ['--config', 'playback/vite.config.ts'])
 * ```
 */
export function viteBuildAndPreview(cwd: string, args: readonly string[] = []): string[] {
  const vite = binCommand(cwd, 'vite', 'bin/vite.js')
  const build = shellLine([...vite, 'build', ...args])
  return ['sh', '-c', `${build} && exec ${shellLine([...vite, 'preview', ...args])}`]
}

/**
 * argv as one shell line (what Playwright's `webServer.command` takes).
 *
 * @example
 * ```ts
 * shellLine(['node', '/a b/c.js']) // 'node "/a b/c.js"'
 * ```
 */
export function shellLine(argv: readonly string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg))).join(' ')
}
