import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import devVarsExample from '../.dev.vars.example?raw'
import { CLIENT } from '../test/client.ts'
import wranglerConfig from '../wrangler.jsonc?raw'
import { presentsToken } from './admin.ts'
import { createApiApp } from './app.ts'

// Against its own state object, so reseeding here cannot disturb other test files.
const app = createApiApp()
const world = (overrides: Record<string, string | undefined> = {}) => ({
  ...env,
  STATE_NAME: 'admin-test',
  ...overrides,
})
const call = (
  path: string,
  init: RequestInit = {},
  overrides: Record<string, string | undefined> = {},
) => app.request(path, init, world(overrides))
const authed = (path: string, headers: Record<string, string> = {}) =>
  call(path, { headers: { authorization: CLIENT, ...headers } })

describe('/__admin', () => {
  it('reports the state, reseeds, and drops tasks on reset', async () => {
    const state = await (await call('/__admin/state')).json<{
      seed: number
      counts: Record<string, number>
    }>()
    expect(state.seed).toBe(42)
    expect(state.counts).toMatchObject({ networks: 50, limitRequests: 300 })
    const before = await (await authed('/cloud/v1/availablenetworks/1/1?order_by=name.asc')).json<{
      results: { id: string }[]
    }>()
    const reset = await call('/__admin/reset', {
      method: 'POST',
      body: JSON.stringify({ seed: 7 }),
      headers: { 'content-type': 'application/json' },
    })
    expect(reset.status).toBe(200)
    expect((await reset.json<{ seed: number }>()).seed).toBe(7)
    const after = await (await authed('/cloud/v1/availablenetworks/1/1?order_by=name.asc')).json<{
      results: { id: string }[]
    }>()
    expect(after.results[0]?.id).not.toBe(before.results[0]?.id)
    expect((await call('/__admin/reset', { method: 'POST' })).status).toBe(200)
    expect((await (await call('/__admin/state')).json<{ seed: number }>()).seed).toBe(42)
    const again = await (await authed('/cloud/v1/availablenetworks/1/1?order_by=name.asc')).json<{
      results: { id: string }[]
    }>()
    expect(again.results.map((n) => n.id)).toEqual(before.results.map((n) => n.id))
  })

  it('rejects a bad seed', async () => {
    const res = await call('/__admin/reset', {
      method: 'POST',
      body: JSON.stringify({ seed: -1 }),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
  })

  it('keeps a journal of requests, newest first, with credential labels and never keys', async () => {
    await call('/__admin/requests', { method: 'DELETE' })
    await authed('/cloud/v1/availablenetworks/1/1?limit=1')
    await authed('/cloud/v2/limits_request?limit=0')
    await call('/cloud/v2/limits_request')
    const { count, results } = await (await call('/__admin/requests')).json<{
      count: number
      results: {
        method: string
        path: string
        query: string
        status: number
        principal: string | null
      }[]
    }>()
    expect(count).toBe(3)
    expect(results.map((r) => [r.path, r.status])).toEqual([
      ['/cloud/v2/limits_request', 401],
      ['/cloud/v2/limits_request', 400],
      ['/cloud/v1/availablenetworks/1/1', 200],
    ])
    expect(results[2]?.query).toBe('?limit=1')
    expect(results[2]?.principal).toBe('apikey:client:0')
    expect(JSON.stringify(results)).not.toContain('test-client-key')
    expect((await call('/__admin/requests', { method: 'DELETE' })).status).toBe(204)
    expect((await (await call('/__admin/requests')).json<{ count: number }>()).count).toBe(0)
  })

  it('is a 404 when EMULATOR_ADMIN is off, and Prefer is ignored', async () => {
    const off = { EMULATOR_ADMIN: 'false' }
    expect((await call('/__admin/state', {}, off)).status).toBe(404)
    const res = await call(
      '/cloud/v1/availablenetworks/1/1?limit=1',
      { headers: { authorization: CLIENT, prefer: 'code=503' } },
      off,
    )
    expect(res.status).toBe(200)
  })
})

describe('/__admin is off unless enabled for local use, and locked by EMULATOR_ADMIN_TOKEN', () => {
  const TOKEN = 'admin-token-0123456789'
  const locked = { EMULATOR_ADMIN_TOKEN: TOKEN }
  const state = (headers: Record<string, string>, overrides = locked) =>
    call('/__admin/state', { headers }, overrides)

  it('is off in what a deploy ships (wrangler.jsonc), on in the local .dev.vars', () => {
    // wrangler.jsonc with its comment lines left out is JSON
    const config = JSON.parse(
      wranglerConfig
        .split('\n')
        .filter((line) => !/^\s*\/\//.test(line))
        .join('\n'),
    ) as { vars: Record<string, string> }
    expect(config.vars).not.toHaveProperty('EMULATOR_ADMIN')
    expect(config.vars).not.toHaveProperty('EMULATOR_ADMIN_TOKEN')
    expect(devVarsExample.split('\n')).toContain('EMULATOR_ADMIN=true')
  })

  it('answers 404 when EMULATOR_ADMIN is unset, as for false', async () => {
    const unset = { ...world(), EMULATOR_ADMIN: undefined }
    expect((await app.request('/__admin/state', {}, unset)).status).toBe(404)
    expect((await app.request('/__admin/reset', { method: 'POST' }, unset)).status).toBe(404)
    expect((await app.request('/__admin/requests', {}, unset)).status).toBe(404)
  })

  it.each([
    ['no Authorization', {}],
    ['an API key of the emulated API', { authorization: CLIENT }],
    ['another bearer token', { authorization: 'Bearer admin-token-0123456780' }],
    ['the token without its scheme', { authorization: TOKEN }],
    ['the token after two spaces', { authorization: `Bearer  ${TOKEN}` }],
  ])('answers 401 for %s when a token is set', async (_, headers) => {
    const res = await state(headers)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="emulator-admin"')
    expect(await res.json()).toMatchObject({
      exception_class: 'AuthenticationFailed',
      message: 'The emulator controls need Authorization: Bearer <EMULATOR_ADMIN_TOKEN>.',
    })
    const reset = await call('/__admin/reset', { method: 'POST', headers }, locked)
    expect(reset.status).toBe(401)
    const journal = await call('/__admin/requests', { method: 'DELETE', headers }, locked)
    expect(journal.status).toBe(401)
  })

  it('answers with the token (scheme in any case), and 404 when off, token or not', async () => {
    expect((await state({ authorization: `Bearer ${TOKEN}` })).status).toBe(200)
    expect((await state({ authorization: `bearer ${TOKEN}` })).status).toBe(200)
    const off = { ...locked, EMULATOR_ADMIN: 'false' }
    expect((await state({ authorization: `Bearer ${TOKEN}` }, off)).status).toBe(404)
  })

  it('refuses a guessable token as a misconfiguration (500 naming it)', async () => {
    const res = await state({ authorization: 'Bearer short' }, { EMULATOR_ADMIN_TOKEN: 'short' })
    expect(res.status).toBe(500)
    expect(await res.text()).toContain('EMULATOR_ADMIN_TOKEN')
  })

  it('presentsToken reads Bearer <token> only', async () => {
    expect(await presentsToken(`Bearer ${TOKEN}`, TOKEN)).toBe(true)
    expect(await presentsToken(undefined, TOKEN)).toBe(false)
    expect(await presentsToken(`Bearer ${TOKEN} x`, TOKEN)).toBe(false)
    expect(await presentsToken(`Basic ${TOKEN}`, TOKEN)).toBe(false)
  })
})

describe('Prefer', () => {
  it('answers the asked status in the family shape, with Retry-After for 429/503', async () => {
    const cloud = await authed('/cloud/v1/availablenetworks/1/1', { prefer: 'code=503' })
    expect(cloud.status).toBe(503)
    expect(cloud.headers.get('retry-after')).toBe('1')
    expect(cloud.headers.get('preference-applied')).toBe('code=503')
    expect(await cloud.json()).toMatchObject({
      exception_class: 'ServiceUnavailable',
      message: 'Simulated 503 (Prefer: code=503).',
    })
    const edge = await authed('/edge/v1/admin/apps', { prefer: 'code=500' })
    expect(edge.status).toBe(500)
    expect(await edge.json()).toEqual({ error: 'Simulated 500 (Prefer: code=500).' })
    const login = await call('/iam/auth/jwt/login', {
      method: 'POST',
      headers: { prefer: 'code=429' },
    })
    expect(login.status).toBe(429)
    expect(await login.json()).toEqual({
      errors: { non_field_errors: ['Simulated 429 (Prefer: code=429).'] },
    })
  })

  it('never answers before authentication: no credential is a 401, at once', async () => {
    const anonymous = await call('/cloud/v1/availablenetworks/1/1', {
      headers: { prefer: 'code=200' },
    })
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('preference-applied')).toBeNull()
    const started = Date.now()
    const delayed = await call('/waap/v1/domains', { headers: { prefer: 'delay=2000' } })
    expect(delayed.status).toBe(401)
    expect(Date.now() - started).toBeLessThan(1500)
  })

  it('waits for delay= before answering', async () => {
    const started = Date.now()
    expect(
      (await authed('/cloud/v1/availablenetworks/1/1?limit=1', { prefer: 'delay=150' })).status,
    ).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
  })

  it.each(['code=abc', 'code=99', 'delay=-1', 'delay=999999', 'task=maybe'])(
    'rejects Prefer: %s with 400',
    async (prefer) => {
      expect((await authed('/cloud/v1/availablenetworks/1/1', { prefer })).status).toBe(400)
    },
  )

  it.each(['code=101', 'code=100', 'code=199', 'code=600'])(
    'refuses Prefer: %s, a status no response can carry, with a 400 saying which can (was a 500)',
    async (prefer) => {
      const res = await authed('/cloud/v1/availablenetworks/1/1', { prefer })
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({
        exception_class: 'ValidationError',
        invalid_fields: { Prefer: ['code must be an HTTP status from 200 to 599.'] },
      })
    },
  )

  it.each([
    [415, 'UnsupportedMediaType'],
    [413, 'ContentTooLarge'],
    [418, 'ClientError'],
    [599, 'ServerError'],
    [401, 'AuthenticationFailed'],
  ])('gives a simulated %i the exception_class %s', async (code, exceptionClass) => {
    const res = await authed('/waap/v1/domains', { prefer: `code=${code}` })
    expect(res.status).toBe(code)
    expect(await res.json()).toMatchObject({ exception_class: exceptionClass })
  })
})

describe('/openapi.json', () => {
  it('is an OpenAPI 3.1 document of every route, with both security schemes, no credential needed', async () => {
    const res = await call('/openapi.json')
    expect(res.status).toBe(200)
    const doc = await res.json<{
      openapi: string
      paths: Record<string, Record<string, { deprecated?: boolean }>>
      components: { securitySchemes: Record<string, unknown> }
    }>()
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/cloud/v1/availablenetworks/{project_id}/{region_id}',
        '/cloud/v3/gpu/baremetal/{project_id}/{region_id}/clusters',
        '/cloud/v1/tasks/{task_id}',
        '/cloud/reseller/v1/limits_request',
        '/cloud/v2/limits_request',
        '/dns/v2/analyze/{name}/delegation-status',
        '/edge/v1/admin/apps',
        '/billing/org/v1/addendums',
        '/streaming/ai/tasks',
        '/iam/auth/jwt/login',
        '/iam/auth/jwt/refresh',
        '/iam/clients/me',
        '/waap/v1/analytics/requests',
        '/waap/v1/domains/{domain_id}/requests/{request_id}/details',
        '/waap/v1/domains',
        '/__admin/reset',
      ]),
    )
    expect(doc.paths['/cloud/v1/availablenetworks/{project_id}/{region_id}']?.get?.deprecated).toBe(
      true,
    )
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['APIKey', 'Bearer'])
  })
})
