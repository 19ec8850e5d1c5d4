import { tokenRefreshWorker } from '@proj/demo/vite-plugin'
import { defineConfig } from 'vite'
import { PAGE_PORT } from './page.ts'

// The benchmark page, built like the demo (production build, the same service worker), from
// 127.0.0.1: the token worker and the CDN listen on IPv4 loopback.
export default defineConfig({
  root: 'page',
  plugins: [tokenRefreshWorker()],
  build: { outDir: '../../../.tmp/bench/page', emptyOutDir: true, chunkSizeWarningLimit: 2048 },
  preview: { host: '127.0.0.1', port: PAGE_PORT, strictPort: true },
})
