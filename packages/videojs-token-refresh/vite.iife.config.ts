import { viteIifeConfig } from '@proj/token-refresh/vite-iife-config'
import { defineConfig } from 'vite'

// The script-tag build (`vite build -c vite.iife.config.ts`): video.js from the page's `videojs`
// global, the core and the native protection inlined (the plugin's on-demand import becomes part
// of the file), exposing `VideojsTokenRefresh`.
export default defineConfig(
  viteIifeConfig({
    from: import.meta.url,
    entry: 'src/iife.ts',
    name: 'VideojsTokenRefresh',
    player: { module: 'video.js', global: 'videojs' },
    fileName: 'videojs-token-refresh.min.js',
  }),
)
