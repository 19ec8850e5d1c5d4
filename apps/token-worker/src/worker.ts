import { createTokenApp } from './app.ts'

// The Workers entry point. To plug your own authorization, pass `authorize` here (see README).
export default createTokenApp()
// The Durable Object class behind the SESSION_REGISTRY binding (wrangler.jsonc).
export { SessionRegistry } from './session/session-registry.ts'
