import { sValidator } from '@hono/standard-validator'
import { Hono } from 'hono/tiny'
import * as v from 'valibot'
import { fail } from '../errors.ts'
import { answerHeaders } from '../response-headers.ts'
import type { TokenAppEnv } from '../types.ts'
import { operatorBody, operatorOnly } from './revoke-route.ts'
import type { SessionLane } from './session-lane.ts'

const drainBody = v.strictObject(
  { cdn: v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,32}$/)) },
  'body must be {"cdn": "<id>"}',
)

/**
 * The operator's CDN switch for sessions, beside revocation: `GET /cdns` (what this instance
 * sees: which CDN serves sessions, each CDN's state), `POST /cdns/drain` `{"cdn": "primary"}`
 * (sessions leave it at their next file), `POST /cdns/undrain` (they may come back). A drain
 * is kept in the session store (Durable Object, Redis, memory: every instance sharing it
 * drains alike within a second); with a store of your own without `drainCdn`, in the process.
 *
 * @example
 * ```ts
 * app.route('/', cdnRoute(sessionLane(options)))
 * ```
 */
export function cdnRoute(lane: SessionLane) {
  const cdnsOf = (config: Parameters<SessionLane['cdnsOf']>[0]) => {
    const cdns = lane.cdnsOf(config)
    if (cdns.cdns.length < 2)
      fail(409, 'one CDN is configured: there is nothing to switch to (set CDNS to add one)')
    return cdns
  }
  const validBody = sValidator('json', drainBody, (result) => {
    if (!result.success) fail(400, result.error[0]?.message ?? 'invalid body')
  })
  return new Hono<TokenAppEnv>()
    .get('/cdns', operatorOnly('the CDN switch'), async function cdnView(c) {
      const cdns = cdnsOf(c.get('tokenConfig'))
      await lane.syncDrains(c, cdns)
      return c.json({ serving: cdns.serving(), cdns: cdns.health.view() }, 200, answerHeaders(c))
    })
    .post(
      '/cdns/:action{drain|undrain}',
      operatorOnly('the CDN switch'),
      operatorBody,
      validBody,
      async function drainCdn(c) {
        const cdns = cdnsOf(c.get('tokenConfig'))
        const { cdn } = c.req.valid('json')
        if (!cdns.health.has(cdn))
          fail(404, `no CDN ${cdn}: the CDNs are ${cdns.cdns.map(({ id }) => id).join(', ')}`)
        const drained = c.req.param('action') === 'drain'
        // in the shared store when it keeps drains (every instance), else in this process
        const store = lane.storeOf(c)
        if (store.drainCdn !== undefined) await store.drainCdn(cdn, drained)
        cdns.health.drain(cdn, drained)
        lane.audit(
          JSON.stringify({
            event: drained ? 'cdn_drained' : 'cdn_undrained',
            time: new Date(lane.now()).toISOString(),
            cdn,
            request_id: c.get('requestId'),
          }),
        )
        return c.json({ serving: cdns.serving(), cdns: cdns.health.view() }, 200, answerHeaders(c))
      },
    )
}
