export { type FakeBackend, type FakeBackendOptions, fakeTokenBackend } from './fake-backend.ts'
export { type FakeTime, fakeTime } from './fake-time.ts'
export { testRefreshOptions } from './refresh-options.ts'
export { type Hit, tinyCdn } from './tiny-cdn.ts'
