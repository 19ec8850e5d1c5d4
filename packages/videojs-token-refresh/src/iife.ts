// The script-tag build's entry (`VideojsTokenRefresh` global, video.js from `window.videojs`): the
// package's API plus the service worker registration, and the plugin registered on load, as
// video.js plugins loaded by a <script> do.
import { registerTokenRefresh } from './register.ts'

export { registerTokenRefreshWorker } from '@proj/sw-token-refresh'
export * from './index.ts'

registerTokenRefresh()
