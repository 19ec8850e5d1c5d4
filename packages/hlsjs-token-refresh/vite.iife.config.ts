import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// The script-tag build (`vite build -c vite.iife.config.ts`): one minified IIFE that takes
// hls.js from the page's `Hls` global, inlines the core and the native protection (the
// on-demand import of `attachNative` becomes part of the file: an IIFE has no chunks), and
// exposes `HlsTokenRefresh`.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    lib: {
      entry: 'build/iife.ts',
      name: 'HlsTokenRefresh',
      formats: ['iife'],
      fileName: () => 'hlsjs-token-refresh.min.js',
    },
    rolldownOptions: { external: ['hls.js'], output: { globals: { 'hls.js': 'Hls' } } },
  },
})
