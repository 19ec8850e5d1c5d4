export { type InstallOptions, installTokenRefreshWorker } from './install.ts'
export { cacheStore, memoryStore, type RecordStore, type StoredEntry } from './record-store.ts'
export {
  RequestRewriter,
  type RequestRewriterOptions,
  type WorkerClients,
} from './request-rewriter.ts'
