import { createTokenApp } from '@proj/token-backend'

// The Workers entry point: configuration from wrangler.jsonc "vars" and secrets (c.env). To plug
// your own authorization, pass `authorize` here (see README). The viewer rate limit counts in the
// TOKEN_RATE_LIMITER binding that wrangler.jsonc declares (across isolates), and only in this
// isolate when a deployment leaves it out.
export default createTokenApp()
// The Durable Object class behind the SESSION_REGISTRY binding (wrangler.jsonc): every entry that
// uses this wrangler.jsonc exports it, or `wrangler deploy` refuses the Worker.
export { SessionRegistry } from '@proj/token-backend/session-registry'
