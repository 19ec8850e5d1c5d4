import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'

/** Options of {@link tokenRefreshWorker}. */
export interface TokenRefreshWorkerPluginOptions {
  /**
   * Where the worker is served and written, under Vite's `base`. Default `token-refresh-sw.js`:
   * at the root, so its scope can be the whole site (a worker controls only pages under its own
   * folder). Pass the same path to `registerTokenRefreshWorker({ url })`.
   */
  fileName?: string
}

// The published package ships the worker ready-made (`dist/token-refresh-sw.js`, beside this
// module's `dist/vite/`); run from source (this repository), the plugin bundles it the same way.
const PREBUILT = fileURLToPath(new URL('../token-refresh-sw.js', import.meta.url))
const SOURCE = fileURLToPath(new URL('../worker/sw.ts', import.meta.url))

/**
 * The worker script: the prebuilt file (`prebuilt`, default the package's own) when there is
 * one, else `src/worker/sw.ts` bundled into a classic script (a service worker registered without
 * `type: 'module'` cannot import). For dev servers other than Vite's.
 *
 * @example
 * ```ts
 * response.end(await workerScript())
 * ```
 */
export async function workerScript(prebuilt = PREBUILT): Promise<string> {
  if (existsSync(prebuilt)) return readFile(prebuilt, 'utf8')
  const { build } = await import('esbuild')
  const result = await build({
    entryPoints: [SOURCE],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2022',
    write: false,
  })
  const [output] = result.outputFiles
  if (!output) throw new Error(`token-refresh-sw: bundling ${SOURCE} gave no output`)
  return output.text
}

/**
 * Serves the ready-made service worker at `/token-refresh-sw.js` on the dev server and writes it
 * there in builds: a service worker must come from the page's origin, and its path bounds its
 * scope.
 *
 * @example
 * ```ts
 * // vite.config.ts
 * import { tokenRefreshWorker } from '@proj/sw-token-refresh/vite'
 *
 * export default defineConfig({ plugins: [tokenRefreshWorker()] })
 * // page: registerTokenRefreshWorker({ url: '/token-refresh-sw.js' })
 * ```
 */
export function tokenRefreshWorker(options: TokenRefreshWorkerPluginOptions = {}): Plugin {
  const fileName = (options.fileName ?? 'token-refresh-sw.js').replace(/^\/+/, '')
  return {
    name: 'token-refresh-sw',
    configureServer(server) {
      server.middlewares.use(
        `${server.config.base}${fileName}`,
        async (_request, response, next) => {
          try {
            const script = await workerScript()
            response.setHeader('content-type', 'text/javascript')
            // the browser checks for a new worker on every navigation: always the current one
            response.setHeader('cache-control', 'no-cache')
            response.end(script)
          } catch (error) {
            next(error)
          }
        },
      )
    },
    async generateBundle() {
      // the page's build only: an SSR build's output is not served to browsers
      if (this.environment?.config.consumer === 'server') return
      this.emitFile({ type: 'asset', fileName, source: await workerScript() })
    },
  }
}
