// The script-tag build's entry (`VideojsTokenRefresh` global, video.js from `window.videojs`): the
// package's API, `registerTokenRefreshWorker` included, and the plugin registered on load, as
// video.js plugins loaded by a <script> do. What it loads on demand (the CDN lane, the native
// protection) are ES module files beside it (vite.iife.config.ts).
import { registerTokenRefresh } from './register.ts'

export * from './index.ts'

registerTokenRefresh()
