export { type FakeBackend, type FakeBackendOptions, fakeTokenBackend } from './fake-backend.ts'
export { type FakeTime, fakeTime } from './fake-time.ts'
export { testRefreshOptions } from './refresh-options.ts'
export {
  type IifeBuildConfig,
  loadScriptTagBuild,
  type ScriptTagBuildOptions,
} from './script-tag-build.ts'
export { type Hit, tinyCdn } from './tiny-cdn.ts'
export { type CdnVerdict, type TokenBook, tokenBook } from './token-book.ts'
