import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// The script-tag build (`vite build -c vite.iife.config.ts`): one minified IIFE with the core
// inlined, exposing `ShakaTokenRefresh`. The adapter only uses the player it is given; should it
// ever import Shaka, that import is the page's `shaka` global.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    lib: {
      entry: 'src/index.ts',
      name: 'ShakaTokenRefresh',
      formats: ['iife'],
      fileName: () => 'shaka-token-refresh.min.js',
    },
    rolldownOptions: {
      external: ['shaka-player'],
      output: { globals: { 'shaka-player': 'shaka' } },
    },
  },
})
