export { type LocalPorts, localPorts, localStack } from './local-stack.ts'
export {
  apiWorker,
  binCommand,
  cdnEmulator,
  demo,
  ROOT,
  type Service,
  shellLine,
  tokenWorker,
  viteBuildAndPreview,
  WRANGLER_ENV,
  wranglerDev,
} from './services.ts'
