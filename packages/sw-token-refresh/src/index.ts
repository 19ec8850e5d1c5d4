export {
  type NativeMode,
  type NativeProtection,
  type NativeProtectionOptions,
  protectNativePlayback,
} from './page/protect-native.ts'
export {
  type RegisterOptions,
  registerTokenRefreshWorker,
  ServiceWorkerUnavailableError,
} from './page/register-worker.ts'
export { SourceSwap, type SourceSwapOptions, type SwapMeasurement } from './page/source-swap.ts'
export { TokenRefreshWorker } from './page/worker-connection.ts'
export type { Seen } from './protocol.ts'
