import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { durableSessionStore, type SessionRegistryNamespace } from './durable-session-store.ts'
import type { SessionRegistry } from './session-registry.ts'
import { describeSessionStore, targetSecondMs } from './store-conformance.test-suite.ts'

// The SessionRegistry Durable Object of test/wrangler.test.jsonc, in workerd. It keeps no time
// itself: records die at an alarm (`untilSeconds` + 60 s). The clock below is the real one
// plus an offset; advancing it runs, by hand, the alarms the offset has made due, as workerd
// would once that time had come.
const registry = (env as unknown as { SESSION_REGISTRY: DurableObjectNamespace<SessionRegistry> })
  .SESSION_REGISTRY
const touched = new Set<string>()
const namespace: SessionRegistryNamespace = {
  getByName(name) {
    touched.add(name)
    return registry.getByName(name)
  },
}
let offsetMs = 0

async function runDueAlarms(nowMs: number) {
  for (const name of touched) {
    const stub = registry.getByName(name)
    const alarm = await runInDurableObject(stub, (_, state) => state.storage.getAlarm())
    if (alarm !== null && alarm <= nowMs) await runDurableObjectAlarm(stub)
  }
}

describeSessionStore('durableSessionStore (SessionRegistry Durable Object)', {
  make: () => durableSessionStore(namespace),
  clock: {
    now: () => Math.floor((Date.now() + offsetMs) / 1000),
    async advance(seconds) {
      // moved by whole seconds from wherever the real clock stood within one, the clock could
      // land a few ms before the next second, and a test asking the store "in the last valid
      // second" would then overrun it (seen once in a fresh-clone run)
      const target = targetSecondMs(Math.floor((Date.now() + offsetMs) / 1000), seconds)
      offsetMs = target - Date.now()
      await runDueAlarms(target)
    },
    graceSeconds: 60,
  },
  // what another isolate holds: its own store over the same namespace (one isolate runs here,
  // but every call still reaches the one object of that name)
  peer: () => durableSessionStore(namespace),
})
