import { NOW_MS } from '../../test/helpers.ts'
import { memorySessionStore } from './session-store.ts'
import { describeSessionStore } from './store-conformance.test-suite.ts'

// The memory store takes its clock as an argument: a fake one moves its time for the expiry
// tests (one clock per store, so tests do not move each other's time).
let clockMs = NOW_MS

describeSessionStore('memorySessionStore', {
  make: () => memorySessionStore({}, () => clockMs),
  clock: {
    now: () => Math.floor(clockMs / 1000),
    async advance(seconds) {
      clockMs += seconds * 1000
    },
    // entries are dropped by a sweep that runs at most once a minute, on a new entry
    graceSeconds: 60,
  },
  peer: { unavailable: 'memory is per process: a second instance has its own (use Redis)' },
})
