import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import type { Plugin } from 'vite'
import { defineConfig } from 'vitest/config'

/**
 * Serves `@proj/sw-token-refresh`'s ready-made worker at `/token-refresh-sw.js` (dev server) and
 * writes it there in builds: a service worker must come from the page's origin, and its path
 * sets its scope (here the whole site).
 */
const tokenRefreshWorker = (): Plugin => {
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

// 127.0.0.1, not localhost: the token worker and the CDN listen on IPv4 loopback, and the
// IP-bound token must match the address the CDN sees.
export default defineConfig({
  plugins: [tokenRefreshWorker()],
  server: { host: '127.0.0.1', port: Number(process.env.DEMO_PORT ?? 5173), strictPort: true },
  // video.js and hls.js are most of the page; splitting them buys a demo nothing.
  // bench.html: the playback benchmark's one-player page (e2e/bench/playback.spec.ts)
  build: {
    chunkSizeWarningLimit: 2048,
    rolldownOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        bench: fileURLToPath(new URL('bench.html', import.meta.url)),
      },
    },
  },
  preview: { host: '127.0.0.1', port: Number(process.env.DEMO_PORT ?? 5173), strictPort: true },
  test: { include: ['src/**/*.test.ts'], environment: 'happy-dom' },
})
