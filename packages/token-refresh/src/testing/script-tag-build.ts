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
