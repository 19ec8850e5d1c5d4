// Build-time only, imported by name (no import may leave a package); build/ is never packed.
import { fileURLToPath } from 'node:url'

/** What differs between the players' script-tag builds. */
export interface IifeConfigOptions {
  /** The config file's `import.meta.url`: its folder is the build's root. */
  from: string
  /** The module the IIFE is built from, relative to that folder. */
  entry: string
  /** The global the IIFE assigns the entry's exports to, e.g. `HlsTokenRefresh`. */
  name: string
  /** The player's package, left out of the file, and the global a page's player script sets. */
  player: { module: string; global: string }
  /** The file written into dist/ (the `unpkg`/`jsdelivr` file). */
  fileName: string
}

/** The Vite config {@link viteIifeConfig} returns: a subset of Vite's `UserConfig`. */
export interface ViteIifeConfig {
  root: string
  publicDir: false
  logLevel: 'warn'
  build: {
    outDir: string
    emptyOutDir: false
    target: string
    lib: { entry: string; name: string; formats: 'iife'[]; fileName: () => string }
    rolldownOptions: { external: string[]; output: { globals: Record<string, string> } }
  }
}

/**
 * The config of a player adapter's script-tag build: one minified ES2022 IIFE in dist/ (beside
 * the tsc output, which it leaves), the core inlined (an IIFE has no chunks, so on-demand imports
 * are inlined too) and the player taken from the page's global. A plain object, so that this
 * package does not depend on Vite: pass it to Vite's `defineConfig`.
 *
 * @example
 * // vite.iife.config.ts, built with `vite build -c vite.iife.config.ts`
 * export default defineConfig(
 *   viteIifeConfig({
 *     from: import.meta.url,
 *     entry: 'build/iife.ts',
 *     name: 'HlsTokenRefresh',
 *     player: { module: 'hls.js', global: 'Hls' },
 *     fileName: 'hlsjs-token-refresh.min.js',
 *   }),
 * )
 */
export function viteIifeConfig(options: IifeConfigOptions): ViteIifeConfig {
  const { module, global } = options.player
  return {
    root: fileURLToPath(new URL('.', options.from)),
    publicDir: false,
    logLevel: 'warn',
    build: {
      outDir: 'dist',
      emptyOutDir: false,
      target: 'es2022',
      lib: {
        entry: options.entry,
        name: options.name,
        formats: ['iife'],
        fileName: () => options.fileName,
      },
      rolldownOptions: { external: [module], output: { globals: { [module]: global } } },
    },
  }
}
