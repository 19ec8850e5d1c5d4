// Build-time only, imported by name (no import may leave a package); build/ is never packed.
import { fileURLToPath } from 'node:url'

/** A module a script-tag build loads on demand, as an ES module file of its own beside it. */
export interface LazyPart {
  /** The module as the package imports it by name, e.g. `@proj/token-refresh/cdn-lane`. */
  module: string
  /** The file written beside the IIFE, e.g. `hlsjs-token-refresh.cdn-lane.js`. */
  fileName: string
}

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
  /**
   * What the file loads on demand (`import()`), each built into an ES module beside it instead
   * of being inlined: a dynamic `import('./sibling.js')` in a classic script resolves against
   * the script's own URL, so a page gets them from wherever it loads the IIFE from. A part
   * carries its own copy of what it imports from the core: it must not depend on the identity
   * of a core class (`instanceof`; the core tells its errors by name) or on core module state.
   */
  lazy?: LazyPart[]
  /** Vite's `build`, for the lazy parts: passed in, so that this package does not depend on Vite. */
  build?: (config: LazyBuildConfig) => Promise<unknown>
}

/** The Vite config each lazy part is built with (a subset of Vite's `InlineConfig`). */
export interface LazyBuildConfig {
  configFile: false
  root: string
  publicDir: false
  logLevel: 'warn'
  build: {
    outDir: string
    emptyOutDir: false
    target: string
    rolldownOptions: { output: { minify: true } }
    lib: { entry: string; formats: 'es'[]; fileName: () => string }
  }
}

/** The hooks of the plugin that keeps the lazy parts out of the IIFE (a Rollup plugin's). */
interface PluginContext {
  resolve(source: string, importer?: string): Promise<{ id: string } | null>
}
interface LazyPlugin {
  name: string
  configResolved(config: { build: { outDir: string }; root: string }): void
  buildStart(this: PluginContext): Promise<void>
  resolveDynamicImport(
    this: PluginContext,
    specifier: unknown,
    importer: string | undefined,
  ): Promise<{ id: string; external: true } | null>
  closeBundle(): Promise<void>
}

/** The Vite config {@link viteIifeConfig} returns: a subset of Vite's `UserConfig`. */
export interface ViteIifeConfig {
  root: string
  publicDir: false
  logLevel: 'warn'
  plugins: LazyPlugin[]
  build: {
    outDir: string
    emptyOutDir: false
    target: string
    lib: { entry: string; name: string; formats: 'iife'[]; fileName: () => string }
    rolldownOptions: { external: string[]; output: { globals: Record<string, string> } }
  }
}

/**
 * Keeps the lazy parts out of the IIFE: their dynamic imports become `import('./<fileName>')`,
 * and each is built, after the IIFE, into an ES module of that name beside it.
 */
function lazyParts(options: IifeConfigOptions, root: string): LazyPlugin {
  const lazy = options.lazy ?? []
  /** The resolved module id (its file) of each lazy part → its file name. */
  const files = new Map<string, string>()
  let outDir = 'dist'
  let base = root
  return {
    name: 'token-refresh:lazy-parts',
    configResolved(config) {
      base = config.root
      outDir = config.build.outDir
    },
    async buildStart() {
      files.clear()
      const entry = `${base}/${options.entry}`
      for (const part of lazy) {
        const resolved = await this.resolve(part.module, entry)
        if (!resolved) throw new Error(`script-tag build: cannot resolve ${part.module}`)
        files.set(resolved.id, part.fileName)
      }
    },
    async resolveDynamicImport(specifier, importer) {
      if (typeof specifier !== 'string') return null
      const resolved = await this.resolve(specifier, importer)
      const fileName = resolved && files.get(resolved.id)
      return fileName ? { id: `./${fileName}`, external: true } : null
    },
    async closeBundle() {
      if (lazy.length === 0) return
      if (!options.build) throw new Error('script-tag build: lazy parts need Vite’s build')
      for (const [entry, fileName] of files)
        await options.build({
          configFile: false,
          root: base,
          publicDir: false,
          logLevel: 'warn',
          build: {
            outDir,
            emptyOutDir: false,
            target: 'es2022',
            // Vite keeps a library's ES output readable (for the app's own minifier): a file
            // a page loads as it is is minified like the IIFE
            rolldownOptions: { output: { minify: true } },
            lib: { entry, formats: ['es'], fileName: () => fileName },
          },
        })
    },
  }
}

/**
 * The config of a player adapter's script-tag build: one minified ES2022 IIFE in dist/ (beside
 * the tsc output, which it leaves), the core inlined and the player taken from the page's
 * global. What the adapter loads on demand (`lazy`: the CDN lane, the native protection) is not
 * inlined: each is an ES module file beside the IIFE, which a page fetches only when it needs
 * it (an IIFE has no chunks of its own). A plain object, so that this package does not depend
 * on Vite: pass it to Vite's `defineConfig`.
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
 *     lazy: [{ module: '@proj/token-refresh/cdn-lane', fileName: 'hlsjs-token-refresh.cdn-lane.js' }],
 *     build,
 *   }),
 * )
 */
export function viteIifeConfig(options: IifeConfigOptions): ViteIifeConfig {
  const { module, global } = options.player
  const root = fileURLToPath(new URL('.', options.from))
  return {
    root,
    publicDir: false,
    logLevel: 'warn',
    plugins: [lazyParts(options, root.replace(/\/$/, ''))],
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
