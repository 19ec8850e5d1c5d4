// The script-tag build's entry (`HlsTokenRefresh` global, hls.js from the page's `Hls` global):
// the package's API, `registerTokenRefreshWorker` included. What it loads on demand (the CDN
// lane, the native protection) are ES module files beside it (vite.iife.config.ts).
export * from '../src/index.ts'
