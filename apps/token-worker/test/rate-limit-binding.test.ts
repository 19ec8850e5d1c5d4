import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTokenApp, type TokenAppBindings } from '@proj/token-backend'
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { startWranglerDev, type WranglerDev } from './wrangler-dev.ts'

// The shipped wrangler.jsonc declares the Workers Rate Limiting binding, so a deploy counts each
// viewer across its isolates by default. `wrangler dev` runs the Worker in workerd with Miniflare's
// simulation of that binding (a count per key in windows aligned to the clock): that is what these
// tests ask, with an in-isolate limit (RATE_LIMIT_REQUESTS) far below the binding's, so only the
// binding can have let the requests between the two through.
const root = join(import.meta.dirname, '..')
const PORT = 18785

interface ShippedConfig {
  vars: Record<string, string>
  ratelimits?: { name: string; namespace_id: string; simple: { limit: number; period: number } }[]
}
const shipped = JSON.parse(
  readFileSync(join(root, 'wrangler.jsonc'), 'utf8').replace(/^\s*\/\/.*$/gm, ''),
) as ShippedConfig
const binding = shipped.ratelimits?.find((entry) => entry.name === 'TOKEN_RATE_LIMITER')
const limit = binding?.simple.limit ?? 0
const period = binding?.simple.period ?? 0
const devVars = readFileSync(join(root, '.dev.vars.example'), 'utf8')
  .split('\n')
  .filter((line) => /^[A-Z_]+=/.test(line))
const IN_ISOLATE_LIMIT = 2

describe('the shipped wrangler.jsonc', () => {
  it('declares TOKEN_RATE_LIMITER, and vars that agree with it', () => {
    expect(binding).toBeDefined()
    expect(binding?.namespace_id).toMatch(/^[1-9]\d*$/)
    expect([10, 60]).toContain(period)
    expect(limit).toBeGreaterThan(IN_ISOLATE_LIMIT)
    // without the binding the same numbers count per isolate; the period is the Retry-After
    expect(shipped.vars.RATE_LIMIT_REQUESTS).toBe(String(limit))
    expect(shipped.vars.RATE_LIMIT_PERIOD).toBe(String(period))
  })

  it("takes the platform's binding type", () => {
    expectTypeOf<RateLimit>().toExtend<NonNullable<TokenAppBindings['TOKEN_RATE_LIMITER']>>()
  })

  it('without the binding, its vars count the same limit per isolate (in memory)', async () => {
    const app = createTokenApp({ audit: () => undefined })
    const local = devVars.map((line) => [
      line.slice(0, line.indexOf('=')),
      line.slice(line.indexOf('=') + 1),
    ])
    const env = { ...shipped.vars, ...Object.fromEntries(local) }
    const get = () =>
      app.request('/token?video=demo', { headers: { 'x-real-ip': '203.0.113.60' } }, env)
    for (let i = 0; i < limit; i++) expect((await get()).status).toBe(200)
    const over = await get()
    expect(over.status).toBe(429)
    // the rest of this isolate's window: the counter knows when it started
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(period)
  })
})

let dev: WranglerDev
const scratch = mkdtempSync(join(tmpdir(), 'token-worker-ratelimit-'))

beforeAll(async () => {
  const envFile = join(scratch, 'vars')
  writeFileSync(envFile, [...devVars, `RATE_LIMIT_REQUESTS=${IN_ISOLATE_LIMIT}`, ''].join('\n'))
  dev = await startWranglerDev(PORT, [
    // its own devtools port and state: other `wrangler dev`s of this folder run beside it
    '--inspector-port',
    String(PORT + 1000),
    '--persist-to',
    join(scratch, 'state'),
    '--env-file',
    envFile,
  ])
}, 70_000)

afterAll(() => {
  dev.stop()
  rmSync(scratch, { recursive: true, force: true })
})

const get = (path: string, viewer: string) =>
  fetch(`http://127.0.0.1:${PORT}${path}`, { headers: { 'x-real-ip': viewer } })

/**
 * `limit + 1` token requests of one viewer, all inside one of the binding's windows (they are
 * aligned to the clock: a burst across a boundary starts over, so it is sent again, as someone
 * else). Returns the statuses and the last answer.
 */
async function overTheLimit(): Promise<{ statuses: number[]; last: Response; viewer: string }> {
  for (let attempt = 1; ; attempt++) {
    const viewer = `198.51.100.${attempt}`
    const window = Math.floor(Date.now() / (period * 1000))
    const statuses: number[] = []
    let last: Response | undefined
    for (let i = 0; i <= limit; i++) {
      last = await get('/token?video=demo&type=vod', viewer)
      statuses.push(last.status)
      if (i < limit) await last.arrayBuffer()
    }
    if (last && (window === Math.floor(Date.now() / (period * 1000)) || attempt === 3))
      return { statuses, last, viewer }
  }
}

describe('the binding under wrangler dev (workerd)', () => {
  it('refuses request limit + 1 of one viewer with the JSON 429, though the in-isolate limit is 2', async () => {
    expect(dev.output()).toContain('env.TOKEN_RATE_LIMITER')
    const { statuses, last, viewer } = await overTheLimit()
    // the in-memory counter would have refused the third; the binding let `limit` through
    expect(statuses.slice(0, limit)).toEqual(Array(limit).fill(200))
    expect(last.status).toBe(429)
    expect(last.headers.get('content-type')).toMatch(/^application\/json/)
    // the binding does not say when its window ends: the whole period, never too soon
    expect(last.headers.get('retry-after')).toBe(String(period))
    expect(await last.json()).toEqual({
      error: `too many token requests: retry after ${period} s`,
    })
    // sessions count against the same viewer; someone else is counted apart
    expect((await get('/session?video=demo&type=vod', viewer)).status).toBe(429)
    expect((await get('/token?video=demo&type=vod', '198.51.100.200')).status).toBe(200)
  })
})
