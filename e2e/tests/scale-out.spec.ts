// Scale-out on Node: three instances of the token backend (its Node entry, REDIS_URL) on one
// Debian redis-server, behind nginx as a round-robin balancer, as an operator runs them; and the
// same again on a three-shard Redis Cluster (REDIS_CLUSTER=true, each instance told another
// node). What one instance learns (a revocation, a session's networks, a viewer's count) binds
// every other one.
// The fleet trusts X-Forwarded-For from the balancer only (TRUSTED_PROXIES): viewers on other
// networks are clients connecting from other loopback addresses, as nginx sees them.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent, fetch as fetchWith } from 'undici'
import { expect, test } from '../support/browser-witness.ts'
import { cdnRequests } from '../support/cdn-log.ts'
import { ffmpeg, sessionIdOf, uniqueVideo } from '../support/hls-clients.ts'
import { FLEET_RATE_LIMIT, FLEETS, NGINX_ACCESS_LOG, SESSION } from '../support/stack.ts'

const LEAF_MS = SESSION.leafSeconds * 1000
const instance = (port: number) => `http://127.0.0.1:${port}`

/** A connection pool per loopback address a client connects from (its "network"). */
const pools = new Map<string, Agent>()
const poolOf = (address: string) => {
  const pool = pools.get(address) ?? new Agent({ localAddress: address })
  pools.set(address, pool)
  return pool
}
// fullyParallel: a worker may run this file's afterAll after each of its groups; the pools it
// closed are forgotten, so a later group makes new ones and nothing is closed twice
test.afterAll(() => {
  const open = [...pools.values()]
  pools.clear()
  return Promise.all(open.map((pool) => pool.close()))
})

/**
 * One answer through the balancer (or an instance), redirects not followed, from the loopback
 * address `from` (default 127.0.0.1) with `headers`.
 */
const get = async (
  url: string,
  { from = '127.0.0.1', headers = {} as Record<string, string> } = {},
) => {
  const res = await fetchWith(url, { headers, redirect: 'manual', dispatcher: poolOf(from) })
  return {
    status: res.status,
    upstream: res.headers.get('x-upstream') ?? '',
    retryAfter: res.headers.get('retry-after'),
    body: await res.text(),
  }
}

/** The balancer's log: which instance answered each request, and how. */
const balanced = (path: string) =>
  readFileSync(join(NGINX_ACCESS_LOG, '..', 'balancer.log'), 'utf8')
    .split('\n')
    .flatMap((line) => {
      const match = /^(\d+\.\d+) (\d{3}) \S+ "([^"]*)" (\S+)$/.exec(line)
      if (!match?.[3]?.includes(path)) return []
      return [{ at: Number(match[1]) * 1000, status: Number(match[2]), upstream: match[4] ?? '' }]
    })

/** The path prefix of a session's leaves (`/s/<credential>/`). */
const sessionPath = (url: string) => new URL(url).pathname.replace(/master\.m3u8$/, '')

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

for (const fleet of FLEETS)
  test.describe(fleet.name, () => {
    const balancer = `http://127.0.0.1:${fleet.balancer}`

    test('a session revoked through one instance: within the leaf lifetime no media request succeeds through any of the three (ffmpeg, nginx log)', async () => {
      test.setTimeout(120_000)
      const video = uniqueVideo('fleet-revoked')
      // VOD: ffmpeg keeps asking for the next segments after a refusal (a live playlist refused, it
      // would stop), so the instances' refusals show in the balancer's log
      const issued = await get(`${balancer}/session?video=${video}&type=vod`)
      expect(issued.status, issued.body).toBe(200)
      const session = (JSON.parse(issued.body) as { session_url: string }).session_url
      // the session URL names the balancer: every leaf request goes through it
      expect(new URL(session).port).toBe(String(fleet.balancer))
      const client = ffmpeg(session)
      try {
        // playing through every instance for a while before the revocation
        const playingBy = Date.now() + 30_000
        for (;;) {
          const served = cdnRequests(video).filter((entry) => entry.status === 200)
          const upstreams = new Set(balanced(sessionPath(session)).map((entry) => entry.upstream))
          const since = served[0]?.at ?? Date.now()
          if (upstreams.size === 3 && Date.now() - since > 6000) break
          if (Date.now() > playingBy)
            throw new Error(`not playing through three instances:\n${client.output()}`)
          await pause(500)
        }
        const revokedAt = Date.now()
        const [first] = fleet.instances
        const res = await fetch(`${instance(first)}/sessions/revoke`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${SESSION.adminToken}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ session_id: sessionIdOf(session) }),
        })
        expect(res.status, await res.text()).toBe(200)
        await pause(LEAF_MS + 8000)
        client.process.kill('SIGINT')
        await client.exited
        const seen = cdnRequests(video)
        const answers = balanced(sessionPath(session))
        await test.info().attach('requests.json', {
          body: JSON.stringify({ revokedAt, cdn: seen, balancer: answers }, null, 2),
        })
        expect(client.output()).toMatch(/403 Forbidden/)
        // the leaf URLs handed out just before the revocation live out their 10 s (+1 s an instance
        // trusts its last answer, +1 s for the second the CDN counts in): nothing later succeeds
        expect(
          seen.filter((entry) => entry.status === 200 && entry.at > revokedAt + LEAF_MS + 2000),
        ).toEqual([])
        // ...and every instance refused the session, not only the one that was told: what ffmpeg
        // asked after the 1-s cache, then each instance asked directly
        const refusing = answers.filter((entry) => entry.at > revokedAt + 1100)
        expect(refusing.length).toBeGreaterThanOrEqual(3)
        expect(refusing.filter((entry) => entry.status !== 403)).toEqual([])
        for (const port of fleet.instances) {
          const leaf = await get(`${instance(port)}${sessionPath(session)}v0/seg_001.ts`)
          expect(leaf.status, `${port}: ${leaf.body}`).toBe(403)
          expect(JSON.parse(leaf.body)).toEqual({ error: 'session revoked' })
        }
      } finally {
        client.process.kill('SIGKILL')
      }
    })

    test('behind the balancer the viewer is the address nginx saw; a forged X-Forwarded-For changes nothing', async () => {
      const forged = { 'x-forwarded-for': '198.51.100.1', 'x-real-ip': '198.51.100.2' }
      const through = await get(`${balancer}/token?video=fleet-address&type=vod`, {
        from: '127.0.77.7',
        headers: forged,
      })
      expect(through.status, through.body).toBe(200)
      expect(JSON.parse(through.body)).toMatchObject({ client_ip: '127.0.77.7' })
      // straight to an instance: the client is no trusted proxy, its header is not read
      const [first] = fleet.instances
      const direct = await get(`${instance(first)}/token?video=fleet-address&type=vod`, {
        from: '127.0.77.8',
        headers: forged,
      })
      expect(JSON.parse(direct.body)).toMatchObject({ client_ip: '127.0.77.8' })
    })

    test('a session from a third network is refused whichever instance answers; its two networks are admitted by all', async () => {
      // networks are /24s (SESSION_BINDING prefix): 127.0.113.x, 127.0.100.x, 127.0.2.x
      const issued = await get(
        `${balancer}/session?video=${uniqueVideo('fleet-networks')}&type=vod`,
        {
          from: '127.0.113.7',
        },
      )
      expect(issued.status, issued.body).toBe(200)
      const leaf = `${balancer}${sessionPath((JSON.parse(issued.body) as { session_url: string }).session_url)}v0/seg_001.ts`
      // the second network, admitted by one instance, is known to all three
      expect((await get(leaf, { from: '127.0.100.20' })).status).toBe(302)
      const answersFrom = async (from: string, headers: Record<string, string> = {}) => {
        const answers: { status: number; upstream: string }[] = []
        // round robin, with other specs' requests in between: ask until all three have answered
        for (let i = 0; i < 30 && new Set(answers.map((a) => a.upstream)).size < 3; i++) {
          const { status, upstream } = await get(leaf, { from, headers })
          answers.push({ status, upstream })
        }
        expect(new Set(answers.map((a) => a.upstream)).size, JSON.stringify(answers)).toBe(3)
        return answers.map((a) => a.status)
      }
      expect(new Set(await answersFrom('127.0.2.55'))).toEqual(new Set([403]))
      // the third network naming an admitted one in its headers: refused all the same
      expect(
        new Set(await answersFrom('127.0.2.56', { 'x-forwarded-for': '127.0.113.7' })),
      ).toEqual(new Set([403]))
      expect(new Set(await answersFrom('127.0.113.99'))).toEqual(new Set([302]))
      expect(new Set(await answersFrom('127.0.100.21'))).toEqual(new Set([302]))
    })

    test(`a viewer's ${FLEET_RATE_LIMIT} token requests spread over the three instances are admitted, the next refused by every one`, async () => {
      const viewer = `127.10.${Math.floor(Math.random() * 250)}.9`
      // whatever it writes in its headers, it is one viewer
      const forged = (i: number) => ({ 'x-forwarded-for': `198.51.100.${i}` })
      const statuses = []
      for (let i = 0; i < FLEET_RATE_LIMIT; i++) {
        const port = fleet.instances[i % 3] ?? 0
        const res = await get(`${instance(port)}/token?video=fleet-limit&type=vod`, {
          from: viewer,
          headers: forged(i),
        })
        statuses.push(res.status)
      }
      expect(statuses).toEqual(Array(FLEET_RATE_LIMIT).fill(200))
      for (const port of fleet.instances) {
        const refused = await get(`${instance(port)}/token?video=fleet-limit&type=vod`, {
          from: viewer,
          headers: forged(port),
        })
        expect(refused.status, refused.body).toBe(429)
        expect(Number(refused.retryAfter)).toBeGreaterThan(0)
        expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60)
        expect(JSON.parse(refused.body)).toMatchObject({ error: expect.any(String) })
      }
      // another viewer is not counted with this one
      expect(
        (await get(`${balancer}/token?video=fleet-limit&type=vod`, { from: '127.10.250.1' }))
          .status,
      ).toBe(200)
    })
  })
