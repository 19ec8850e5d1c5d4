import { viteIifeConfig } from '@proj/token-refresh/vite-iife-config'
import { build, defineConfig } from 'vite'

// The script-tag build (`vite build -c vite.iife.config.ts`): the core inlined, exposing
// `DashjsTokenRefresh`. The adapter only uses the dash.js it is given (`options.dashjs`); should it
// ever import dash.js, that import is the page's `dashjs` global. The CDN lane (records with
// several CDNs) is an ES module file beside it, which the IIFE imports on demand, relative to its
// own URL.
export default defineConfig(
  viteIifeConfig({
    from: import.meta.url,
    entry: 'src/index.ts',
    name: 'DashjsTokenRefresh',
    player: { module: 'dashjs', global: 'dashjs' },
    fileName: 'dashjs-token-refresh.min.js',
    lazy: [
      // a stream refusal's error class and parsing: no core class, loaded with the first 409
      {
        module: '@proj/token-refresh/stream-limit',
        fileName: 'dashjs-token-refresh.stream-limit.js',
      },
      { module: '@proj/token-refresh/cdn-lane', fileName: 'dashjs-token-refresh.cdn-lane.js' },
    ],
    build,
  }),
)
