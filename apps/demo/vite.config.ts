import { tokenRefreshWorker } from '@proj/sw-token-refresh/vite'
import { defineConfig } from 'vitest/config'

// 127.0.0.1, not localhost: the token worker and the CDN listen on IPv4 loopback, and the
// IP-bound token must match the address the CDN sees.
export default defineConfig({
  plugins: [tokenRefreshWorker()],
  server: { host: '127.0.0.1', port: Number(process.env.DEMO_PORT ?? 5173), strictPort: true },
  // video.js and hls.js are most of the page; splitting them buys a demo nothing.
  build: {
    chunkSizeWarningLimit: 2048,
  },
  preview: { host: '127.0.0.1', port: Number(process.env.DEMO_PORT ?? 5173), strictPort: true },
  test: { include: ['src/**/*.test.ts'], environment: 'happy-dom' },
})
