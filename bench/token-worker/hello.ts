import { serve } from '@hono/node-server'
import { Hono } from 'hono'

// The baseline: the smallest Hono app on the same server adapter, answering a small JSON body.
const app = new Hono().get('/token', (c) => c.json({ hello: 'world' }))
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' }, () =>
  console.log('listening'),
)
