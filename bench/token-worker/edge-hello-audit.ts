import { Hono } from 'hono'

// The edge bench's second baseline: hello-world that writes one JSON line per request, the size
// of GET /token's audit line, so the cost of a log line under `wrangler dev` is seen apart.
const app = new Hono().get('/token', (c) => {
  console.log(
    JSON.stringify({
      event: 'token_issued',
      time: new Date().toISOString(),
      video: 'demo',
      type: 'vod',
      expires: 1795677517,
      path: '/videos/12345_demo/',
      client_ip: '203.0.113.7',
      request_id: crypto.randomUUID(),
    }),
  )
  return c.json({ hello: 'world' })
})
export default app
// wrangler.jsonc binds the sessions' Durable Object: every bundle built with it exports the class
export { SessionRegistry } from '@proj/token-backend/session-registry'
