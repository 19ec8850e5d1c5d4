import { Hono } from 'hono'
import { loopRoute } from './workerd-loop.ts'

// The baseline on workerd: the smallest Hono app answering a small JSON body.
const app = new Hono().get('/token', (c) => c.json({ hello: 'world' }))
export default loopRoute(app)
// wrangler.jsonc binds the sessions' Durable Object: every bundle built with it exports the class
// (never instantiated here)
export { SessionRegistry } from '@proj/token-backend/session-registry'
