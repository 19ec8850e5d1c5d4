// The script-tag build's entry (`HlsTokenRefresh` global, hls.js from the page's `Hls` global):
// the package's API plus the service worker registration `attachNative` takes.
export { registerTokenRefreshWorker } from '@proj/sw-token-refresh'
export * from '../src/index.ts'
