import { viteIifeConfig } from '@proj/token-refresh/vite-iife-config'
import { defineConfig } from 'vite'

// The script-tag build (`vite build -c vite.iife.config.ts`): the core inlined, exposing
// `ShakaTokenRefresh`. The adapter only uses the player it is given; should it ever import Shaka,
// that import is the page's `shaka` global.
export default defineConfig(
  viteIifeConfig({
    from: import.meta.url,
    entry: 'src/index.ts',
    name: 'ShakaTokenRefresh',
    player: { module: 'shaka-player', global: 'shaka' },
    fileName: 'shaka-token-refresh.min.js',
  }),
)
