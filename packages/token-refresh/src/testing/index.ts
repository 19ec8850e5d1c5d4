export { type FakeBackend, type FakeBackendOptions, fakeTokenBackend } from './fake-backend.ts'
export { type FakeTime, fakeTime } from './fake-time.ts'
export { type HeldImport, heldImport } from './held-import.ts'
export { testRefreshOptions } from './refresh-options.ts'
export {
  type IifeBuildConfig,
  loadScriptTagBuild,
  type ScriptTagBuildOptions,
  type ScriptTagPageOptions,
  type SuiteHooks,
  useScriptTagBuild,
} from './script-tag-build.ts'
export { type Hit, type TinyCdn, tinyCdn } from './tiny-cdn.ts'
export { type CdnVerdict, type TokenBook, tokenBook } from './token-book.ts'
export { type CdnFault, type TwoCdns, twoTinyCdns } from './two-cdns.ts'
export { type TinyCdnRun, withTinyCdn } from './with-tiny-cdn.ts'
