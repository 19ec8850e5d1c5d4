import { describe, expect, it } from 'vitest'
import { getJson, RESELLER } from '../../test/client.ts'

type App = {
  id: number
  name: string
  status: number
  api_type: string
  template: number
  binary: number
  plan_id: number
  client_id: number
}
type List = { apps: App[]; count: number }
const list = (query = '') => getJson<List>(`/edge/v1/admin/apps${query}`, { auth: RESELLER })
const all = async () => (await list('?limit=1000')).body.apps

describe('GET /edge/v1/admin/apps (4.6)', () => {
  it('lists 50 apps by default out of 500, every status and API type represented', async () => {
    const { status, body } = await list()
    expect(status).toBe(200)
    expect(body.count).toBe(500)
    expect(body.apps).toHaveLength(50)
    const apps = await all()
    expect(new Set(apps.map((a) => a.status))).toEqual(new Set([0, 1, 2, 3, 4, 5]))
    expect(new Set(apps.map((a) => a.api_type))).toEqual(new Set(['wasi-http', 'proxy-wasm']))
  })

  it('applies every filter, alone and combined', async () => {
    const apps = await all()
    const sample = apps[7] as App
    const cases: [string, (a: App) => boolean][] = [
      [`client_id=${sample.client_id}`, (a) => a.client_id === sample.client_id],
      ['name=AUTH', (a) => a.name.includes('auth')],
      ['api_type=proxy-wasm', (a) => a.api_type === 'proxy-wasm'],
      ['status=0', (a) => a.status === 0],
      [`template=${sample.template}`, (a) => a.template === sample.template],
      [`binary=${sample.binary}`, (a) => a.binary === sample.binary],
      [`plan=${sample.plan_id}`, (a) => a.plan_id === sample.plan_id],
      [`status=1&plan=${sample.plan_id}`, (a) => a.status === 1 && a.plan_id === sample.plan_id],
    ]
    for (const [query, keep] of cases) {
      const { body } = await list(`?limit=1000&${query}`)
      const expected = apps.filter(keep)
      expect(expected.length, query).toBeGreaterThan(0)
      expect(body.count, query).toBe(expected.length)
      expect(
        body.apps.map((a) => a.id),
        query,
      ).toEqual(expected.map((a) => a.id))
    }
  })

  it.each(['name', 'status', 'id', 'template', 'binary', 'plan', 'client'])(
    'orders by %s and -%s',
    async (field) => {
      const key = (a: App) =>
        (({ plan: a.plan_id, client: a.client_id }) as Record<string, number>)[field] ??
        a[field as keyof App]
      const asc = (await list(`?limit=1000&ordering=${field}`)).body.apps.map(key)
      const desc = (await list(`?limit=1000&ordering=-${field}`)).body.apps.map(key)
      const sorted = [...asc].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
      expect(asc).toEqual(sorted)
      expect(desc).toEqual([...sorted].reverse())
    },
  )

  it('paginates with limit and offset', async () => {
    const apps = await all()
    expect((await list('?limit=10&offset=495')).body.apps.map((a) => a.id)).toEqual(
      apps.slice(495).map((a) => a.id),
    )
  })

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?offset=-1', 'offset'],
    ['?status=6', 'status'],
    ['?client_id=0', 'client_id'],
    ['?template=0', 'template'],
    ['?binary=x', 'binary'],
    ['?plan=0', 'plan'],
    ['?api_type=wasm', 'api_type'],
    ['?ordering=-colour', 'ordering'],
    [`?name=${'n'.repeat(256)}`, 'name'],
  ])('answers 400 {error} for %s', async (query, field) => {
    const { status, body } = await getJson<{ error: string }>(`/edge/v1/admin/apps${query}`, {
      auth: RESELLER,
    })
    expect(status).toBe(400)
    expect(Object.keys(body)).toEqual(['error'])
    expect(body.error).toContain(field)
  })

  it('needs a reseller credential: 403 {error} for a client, 401 {error} without one', async () => {
    const client = await getJson<{ error: string }>('/edge/v1/admin/apps')
    expect(client.status).toBe(403)
    expect(Object.keys(client.body)).toEqual(['error'])
    const none = await getJson<{ error: string }>('/edge/v1/admin/apps', { auth: null })
    expect(none.status).toBe(401)
    expect(none.body).toEqual({ error: 'Authentication credentials were not provided.' })
  })
})

describe('int64 parameters (spec 4.6)', () => {
  it("accepts the whole int64 range and refuses beyond it in the API's words", async () => {
    const top = await getJson<List>('/edge/v1/admin/apps?client_id=9223372036854775807', {
      auth: RESELLER,
    })
    expect(top.status).toBe(200)
    expect(top.body.count).toBe(0)
    const over = await getJson<{ error: string }>(
      '/edge/v1/admin/apps?template=9223372036854775808',
      {
        auth: RESELLER,
      },
    )
    expect(over.status).toBe(400)
    expect(over.body.error).toContain('less than or equal to 9223372036854775807')
  })
})
