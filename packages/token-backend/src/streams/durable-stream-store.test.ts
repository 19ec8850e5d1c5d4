import { env } from 'cloudflare:test'
import type { SessionRegistry } from '../session/session-registry.ts'
import { durableStreamStore } from './durable-stream-store.ts'
import { describeStreamStore } from './stream-store-conformance.test-suite.ts'

// The SessionRegistry Durable Object of test/wrangler.test.jsonc, in workerd. Every store over
// the namespace reaches the one object of a viewer, as every isolate's would.
const registry = (env as unknown as { SESSION_REGISTRY: DurableObjectNamespace<SessionRegistry> })
  .SESSION_REGISTRY

describeStreamStore('durableStreamStore (SessionRegistry Durable Object)', {
  make: () => durableStreamStore(registry),
  peers: async (count) => Array.from({ length: count }, () => durableStreamStore(registry)),
})
