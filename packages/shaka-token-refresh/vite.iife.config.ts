import { viteIifeConfig } from '@proj/token-refresh/vite-iife-config'
import { build, defineConfig } from 'vite'

// The script-tag build (`vite build -c vite.iife.config.ts`): the core inlined, exposing
// `ShakaTokenRefresh`. The adapter only uses the player it is given; should it ever import Shaka,
// that import is the page's `shaka` global. The CDN lane (records with several CDNs) and the
// live clock correction (live presentations) are ES module files beside it, which the IIFE
// imports on demand, relative to its own URL.
export default defineConfig(
  viteIifeConfig({
    from: import.meta.url,
    entry: 'src/index.ts',
    name: 'ShakaTokenRefresh',
    player: { module: 'shaka-player', global: 'shaka' },
    fileName: 'shaka-token-refresh.min.js',
    lazy: [
      // a stream refusal's error class and parsing: no core class, loaded with the first 409
      {
        module: '@proj/token-refresh/stream-limit',
        fileName: 'shaka-token-refresh.stream-limit.js',
      },
      { module: '@proj/token-refresh/cdn-lane', fileName: 'shaka-token-refresh.cdn-lane.js' },
      // live presentations only; it uses nothing of the core's at runtime
      { module: './live-clock.ts', fileName: 'shaka-token-refresh.live-clock.js' },
    ],
    build,
  }),
)
