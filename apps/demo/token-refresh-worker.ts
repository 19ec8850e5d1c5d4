import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import type { Plugin } from 'vite'

/**
 * Serves `@proj/sw-token-refresh`'s ready-made worker at `/token-refresh-sw.js` (dev server) and
 * writes it there in builds: a service worker must come from the page's origin, and its path
 * sets its scope (here the whole site). The playback benchmark's page uses it too.
 *
 * @example
 * ```ts
 * export default defineConfig({ plugins: [tokenRefreshWorker()] })
 * ```
 */
export function tokenRefreshWorker(): Plugin {
  const entry = fileURLToPath(import.meta.resolve('@proj/sw-token-refresh/sw'))
  const bundle = async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      format: 'iife',
      target: 'es2022',
      write: false,
    })
    return result.outputFiles[0]?.text ?? ''
  }
  return {
    name: 'token-refresh-sw',
    configureServer(server) {
      server.middlewares.use('/token-refresh-sw.js', async (_request, response) => {
        response.setHeader('content-type', 'text/javascript')
        response.setHeader('cache-control', 'no-cache')
        response.end(await bundle())
      })
    },
    async generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'token-refresh-sw.js', source: await bundle() })
    },
  }
}
