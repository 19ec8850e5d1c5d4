import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// The script-tag build (`vite build -c vite.iife.config.ts`): one minified IIFE that takes
// video.js from the page's `videojs` global, inlines the core and the native protection (the
// plugin's on-demand import becomes part of the file: an IIFE has no chunks), and exposes
// `VideojsTokenRefresh`.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    lib: {
      entry: 'src/iife.ts',
      name: 'VideojsTokenRefresh',
      formats: ['iife'],
      fileName: () => 'videojs-token-refresh.min.js',
    },
    rolldownOptions: { external: ['video.js'], output: { globals: { 'video.js': 'videojs' } } },
  },
})
