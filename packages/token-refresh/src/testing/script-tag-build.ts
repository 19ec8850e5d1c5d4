import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runInThisContext } from 'node:vm'

/** What {@link loadScriptTagBuild} asks Vite's `build` for. */
export interface IifeBuildConfig {
  configFile: string
  build: { outDir: string }
  logLevel: 'silent'
}

/** The options of {@link loadScriptTagBuild}. */
export interface ScriptTagBuildOptions {
  /** Vite's `build`: passed in, so that this package does not depend on Vite. */
  build: (config: IifeBuildConfig) => Promise<unknown>
  /** The test's `import.meta.url`: `configFile` and `player` resolve from it. */
  from: string
  /** The package's IIFE config, relative to `from` (the one `pnpm build` uses). */
  configFile: string
  /** The file name the IIFE build writes. */
  output: string
  /** The player's own script-tag file, as a module specifier resolved from `from`. */
  player: string
  /** Runs after the player's file, before ours (e.g. to quiet or polyfill the player). */
  afterPlayer?: () => void
}

/**
 * Loads a plugin's script-tag build as a page gets it: builds the IIFE into a temporary folder
 * from the package's own config, then evaluates the player's file and ours as classic scripts
 * in the current (happy-dom) global scope, so both set their globals. Node only.
 *
 * @returns a function that removes the temporary folder.
 * @example
 * import { build } from 'vite'
 * const remove = await loadScriptTagBuild({
 *   build,
 *   from: import.meta.url,
 *   configFile: '../vite.iife.config.ts',
 *   output: 'hlsjs-token-refresh.min.js',
 *   player: 'hls.js/dist/hls.min.js',
 * })
 */
export async function loadScriptTagBuild(
  options: ScriptTagBuildOptions,
): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'token-refresh-iife-'))
  const remove = () => rm(folder, { recursive: true, force: true })
  try {
    await options.build({
      configFile: fileURLToPath(new URL(options.configFile, options.from)),
      build: { outDir: folder },
      logLevel: 'silent',
    })
    await runScript(createRequire(options.from).resolve(options.player))
    options.afterPlayer?.()
    await runScript(join(folder, options.output))
  } catch (error) {
    await remove()
    throw error
  }
  return remove
}

async function runScript(file: string): Promise<void> {
  runInThisContext(await readFile(file, 'utf8'), { filename: file })
}

/** A test runner's file-level hooks, e.g. vitest's: passed in, so that this package needs none. */
export interface SuiteHooks {
  beforeAll: (run: () => Promise<void>, timeout?: number) => void
  afterAll: (run: () => Promise<void> | undefined) => void
}

/** The options of {@link useScriptTagBuild}: those of {@link loadScriptTagBuild} but Vite's `build`. */
export interface ScriptTagPageOptions extends Omit<ScriptTagBuildOptions, 'build' | 'configFile'> {
  /** The package's IIFE config, relative to `from`; `../vite.iife.config.ts` unless given. */
  configFile?: string
}

/**
 * A test file's page with the script-tag build on it: {@link loadScriptTagBuild} before the
 * file's tests (the build may take seconds: 30 s allowed), its folder removed after them.
 *
 * @param tools the runner's hooks and Vite's `build`, passed in: this package depends on neither.
 * @returns the global scope, as the globals the player's file and ours set (read them in tests).
 * @example
 * import { build } from 'vite'
 * import { afterAll, beforeAll } from 'vitest'
 * const page = useScriptTagBuild<{ Hls: typeof Hls; HlsTokenRefresh: typeof api }>(
 *   { beforeAll, afterAll, build },
 *   { from: import.meta.url, output: 'hlsjs-token-refresh.min.js', player: 'hls.js/dist/hls.min.js' },
 * )
 */
export function useScriptTagBuild<Globals>(
  tools: SuiteHooks & Pick<ScriptTagBuildOptions, 'build'>,
  options: ScriptTagPageOptions,
): Globals {
  let remove: (() => Promise<void>) | undefined
  tools.beforeAll(async () => {
    const { configFile = '../vite.iife.config.ts' } = options
    remove = await loadScriptTagBuild({ ...options, build: tools.build, configFile })
  }, 30_000)
  tools.afterAll(() => remove?.())
  return globalThis as unknown as Globals
}
