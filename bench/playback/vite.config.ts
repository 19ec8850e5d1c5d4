import { fileURLToPath } from 'node:url'
import { tokenRefreshWorker } from '@proj/sw-token-refresh/vite'
import { defineConfig } from 'vite'
import { PAGE_PORT } from './page.ts'

// The benchmark page, built like the demo (production build, the same service worker), from
// 127.0.0.1: the token worker and the CDN listen on IPv4 loopback.
export default defineConfig({
  // absolute: vite reads `root` against the working folder, not this file
  root: fileURLToPath(new URL('page', import.meta.url)),
  plugins: [tokenRefreshWorker()],
  build: {
    outDir: fileURLToPath(new URL('../../.tmp/bench/page', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 2048,
  },
  preview: { host: '127.0.0.1', port: PAGE_PORT, strictPort: true },
})
