export {
  ephemeralStart,
  freePort,
  PORT_BLOCKS,
  type PortBlockSettings,
  portBlock,
  portSlot,
} from './free-port.ts'
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
