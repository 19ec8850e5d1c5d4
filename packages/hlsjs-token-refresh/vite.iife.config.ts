import { viteIifeConfig } from '@proj/token-refresh/vite-iife-config'
import { defineConfig } from 'vite'

// The script-tag build (`vite build -c vite.iife.config.ts`): hls.js from the page's `Hls`
// global, the core and the native protection inlined (the on-demand import of `attachNative`
// becomes part of the file), exposing `HlsTokenRefresh`.
export default defineConfig(
  viteIifeConfig({
    from: import.meta.url,
    entry: 'build/iife.ts',
    name: 'HlsTokenRefresh',
    player: { module: 'hls.js', global: 'Hls' },
    fileName: 'hlsjs-token-refresh.min.js',
  }),
)
