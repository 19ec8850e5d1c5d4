import { createTokenApp } from '../src/index.ts'

// The Worker the tests run in: the app as a Worker user writes it (configuration from c.env),
// and the Durable Object class test/wrangler.test.jsonc binds.
export default createTokenApp()
export { SessionRegistry } from '../src/session/session-registry.ts'
