// The ready-made service worker: serve it as is (`/token-refresh-sw.js`), or pull it into your
// own classic worker with `importScripts('/token-refresh-sw.js')`.
import { installTokenRefreshWorker } from './install.ts'

installTokenRefreshWorker()
