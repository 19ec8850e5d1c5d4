import { viteIifeConfig } from '@proj/token-refresh/vite-iife-config'
import { build, defineConfig } from 'vite'

// The script-tag build (`vite build -c vite.iife.config.ts`): hls.js from the page's `Hls`
// global, the core inlined, exposing `HlsTokenRefresh`. The CDN lane (records with several
// CDNs) and the native protection (`attachNative`, `registerTokenRefreshWorker`) are ES module
// files beside it, which the IIFE imports on demand, relative to its own URL; what runs after a
// failure (the give-up, the outage revival) is inside it.
export default defineConfig(
  viteIifeConfig({
    from: import.meta.url,
    entry: 'build/iife.ts',
    name: 'HlsTokenRefresh',
    player: { module: 'hls.js', global: 'Hls' },
    fileName: 'hlsjs-token-refresh.min.js',
    lazy: [
      { module: '@proj/token-refresh/cdn-lane', fileName: 'hlsjs-token-refresh.cdn-lane.js' },
      { module: '@proj/sw-token-refresh', fileName: 'hlsjs-token-refresh.native.js' },
    ],
    // what runs after a failure uses the core's classes, and a stream refusal's module is small:
    // inside the file
    inline: ['../src/after-failure.ts', '@proj/token-refresh/stream-limit'],
    build,
  }),
)
