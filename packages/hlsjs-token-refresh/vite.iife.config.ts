import { viteIifeConfig } from '@proj/token-refresh/vite-iife-config'
import { build, defineConfig } from 'vite'

// The script-tag build (`vite build -c vite.iife.config.ts`): hls.js from the page's `Hls`
// global, the core inlined, exposing `HlsTokenRefresh`. The CDN lane (records with several
// CDNs) and the native protection (`attachNative`, `registerTokenRefreshWorker`) are ES module
// files beside it, which the IIFE imports on demand, relative to its own URL, and so is what
// runs after a failure (the give-up, the outage revival).
export default defineConfig(
  viteIifeConfig({
    from: import.meta.url,
    entry: 'build/iife.ts',
    name: 'HlsTokenRefresh',
    player: { module: 'hls.js', global: 'Hls' },
    fileName: 'hlsjs-token-refresh.min.js',
    lazy: [
      // a stream refusal's error class and parsing: no core class, loaded with the first 409
      {
        module: '@proj/token-refresh/stream-limit',
        fileName: 'hlsjs-token-refresh.stream-limit.js',
      },
      { module: '@proj/token-refresh/cdn-lane', fileName: 'hlsjs-token-refresh.cdn-lane.js' },
      { module: '@proj/sw-token-refresh', fileName: 'hlsjs-token-refresh.native.js' },
      // the give-up and the outage revival, with the first failure: they know the core's
      // errors by name (endsPlayback), so their own copy of a class is harmless
      { module: '../src/after-failure.ts', fileName: 'hlsjs-token-refresh.after-failure.js' },
    ],
    build,
  }),
)
