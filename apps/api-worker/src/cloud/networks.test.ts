import { describe, expect, it } from 'vitest'
import { api, getJson } from '../../test/client.ts'

interface Net {
  id: string
  name: string
  type: string
  external: boolean
  shared: boolean
  default: boolean | null
  project_id: number | null
  region_id: number
  created_at: string
  creator_task_id: string | null
  task_id: string | null
  subnets: {
    id: string
    network_id: string
    project_id: number | null
    created_at: string
    has_router: boolean
    creator_task_id: string | null
    task_id: string | null
  }[]
  tags: { key: string; value: string }[]
}
type List = { count: number; results: Net[] }
const list = (query = '') => getJson<List>(`/cloud/v1/availablenetworks/1/1${query}`)

describe('GET /cloud/v1/availablenetworks/{project_id}/{region_id}', () => {
  it('lists the project’s and shared networks of the region, with subnets, marked deprecated', async () => {
    const { res, status, body } = await list()
    expect(status).toBe(200)
    expect(res.headers.get('deprecation')).toBe('true')
    expect(res.headers.get('link')).toBe(
      '</cloud/v1/networks/1/1?owned_by=any>; rel="successor-version"',
    )
    expect(body.count).toBe(body.results.length)
    expect(body.count).toBeGreaterThan(20)
    for (const n of body.results) {
      expect(n.region_id).toBe(1)
      expect(n.project_id === 1 || n.shared).toBe(true)
      expect(n.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$/)
      expect(n.subnets.length).toBeGreaterThan(0)
      for (const s of n.subnets) {
        expect(s.network_id).toBe(n.id)
        expect(s.has_router).toBe(false)
      }
      expect(n).not.toHaveProperty('priority')
    }
  })

  it('filters by external, shared, network_type and name', async () => {
    const all = (await list()).body.results
    for (const [query, keep] of [
      ['?external=true', (n: Net) => n.external],
      ['?external=false', (n: Net) => !n.external],
      ['?shared=true', (n: Net) => n.shared],
      ['?network_type=vlan', (n: Net) => n.type === 'vlan'],
      ['?name=PROD', (n: Net) => n.name.includes('prod')],
    ] as const) {
      const { body } = await list(query)
      const expected = all.filter(keep)
      expect(expected.length, query).toBeGreaterThan(0)
      expect(
        body.results.map((n) => n.id),
        query,
      ).toEqual(expected.map((n) => n.id))
    }
  })

  it('narrows to one network with network_id, in either case', async () => {
    const target = (await list()).body.results[3] as Net
    const { body } = await list(`?network_id=${target.id}`)
    expect(body.results.map((n) => n.id)).toEqual([target.id])
    const upper = (await list(`?network_id=${target.id.toUpperCase()}`)).body
    expect(upper.results.map((n) => n.id)).toEqual([target.id])
  })

  it('holds no lock, and every creator_task_id is a FINISHED task that created it', async () => {
    type Task = {
      state: string
      task_type: string
      project_id: number
      created_resources: Record<string, string[]> | null
    }
    const networks = (await getJson<List>('/cloud/v1/availablenetworks/1/1')).body.results
    const resources = networks.flatMap((n) => [
      { ...n, kind: 'networks' },
      ...n.subnets.map((s) => ({ ...s, kind: 'subnets' })),
    ])
    expect(resources.every((r) => r.task_id === null)).toBe(true)
    const created = resources.filter((r) => r.creator_task_id !== null)
    expect(created.length).toBeGreaterThan(10)
    for (const r of created) {
      const { status, body } = await getJson<Task>(`/cloud/v1/tasks/${r.creator_task_id}`)
      expect(status, r.creator_task_id ?? '').toBe(200)
      expect(body).toMatchObject({
        state: 'FINISHED',
        task_type: r.kind === 'networks' ? 'create_network' : 'create_subnet',
        project_id: r.project_id,
        created_resources: { [r.kind]: [r.id] },
      })
    }
  })

  it('filters by repeated tag_key (all required) and a JSON tag_key_value', async () => {
    const all = (await list()).body.results
    const tagged = all.find((n) => n.tags.length >= 2) as Net
    const [a, b] = tagged.tags as [Net['tags'][0], Net['tags'][0]]
    const both = (await list(`?tag_key=${a.key}&tag_key=${b.key}`)).body.results
    expect(both.map((n) => n.id)).toEqual(
      all
        .filter((n) => [a.key, b.key].every((k) => n.tags.some((t) => t.key === k)))
        .map((n) => n.id),
    )
    const byValue = (
      await list(`?tag_key_value=${encodeURIComponent(JSON.stringify({ [a.key]: a.value }))}`)
    ).body.results
    expect(byValue.length).toBeGreaterThan(0)
    expect(byValue.every((n) => n.tags.some((t) => t.key === a.key && t.value === a.value))).toBe(
      true,
    )
  })

  it('orders by each order_by value and paginates with limit/offset', async () => {
    const names = (await list('?order_by=name.asc')).body.results.map((n) => n.name)
    expect(names).toEqual([...names].sort())
    expect((await list('?order_by=name.desc')).body.results.map((n) => n.name)).toEqual(
      [...names].sort().reverse(),
    )
    const created = (await list('?order_by=created_at.desc')).body.results.map((n) => n.created_at)
    expect(created).toEqual([...created].sort().reverse())
    const asc = (await list('?order_by=created_at.asc')).body.results.map((n) => n.created_at)
    expect(asc).toEqual([...asc].sort())
    const priority = (await list('?order_by=priority.desc')).body.results
    expect(priority[0]?.default).toBe(true)
    const page = (await list('?order_by=name.asc&limit=5&offset=5')).body
    expect(page.results.map((n) => n.name)).toEqual(names.slice(5, 10))
    expect(page.count).toBe(names.length)
  })

  it.each([
    ['?limit=0', 'limit', 'greater than or equal to 1'],
    ['?limit=1001', 'limit', 'less than or equal to 1000'],
    ['?limit=ten', 'limit', 'A valid integer is required.'],
    ['?offset=-1', 'offset', 'greater than or equal to 0'],
    [`?name=${'x'.repeat(62)}`, 'name', 'no more than 61 characters'],
    ['?network_id=abc', 'network_id', 'valid UUID'],
    ['?network_type=flat', 'network_type', ''],
    ['?order_by=priority.asc', 'order_by', ''],
    ['?external=maybe', 'external', 'valid boolean'],
    // names every object inherits are no booleans either (an object lookup found them: a 200)
    ['?external=constructor', 'external', 'Must be a valid boolean.'],
    ['?shared=__proto__', 'shared', 'Must be a valid boolean.'],
    ['?external=toString', 'external', 'Must be a valid boolean.'],
    ['?shared=hasOwnProperty', 'shared', 'Must be a valid boolean.'],
    ['?external=yes', 'external', 'Must be a valid boolean.'],
    ['?tag_key=a%20b', 'tag_key.0', 'without whitespace'],
    ['?tag_key_value=[1]', 'tag_key_value', 'JSON object'],
    // the tag rules of spec 2.1 hold for tag_key_value too
    [
      `?tag_key_value=${encodeURIComponent('{"a b":"x"}')}`,
      'tag_key_value',
      'must not contain spaces',
    ],
    [`?tag_key_value=${encodeURIComponent('{"a=b":"x"}')}`, 'tag_key_value', '"="'],
    [`?tag_key_value=${encodeURIComponent('{"":"x"}')}`, 'tag_key_value', '1 to 255 characters'],
    [`?tag_key_value=${encodeURIComponent('{"env":""}')}`, 'tag_key_value', '1 to 255 characters'],
    [
      `?tag_key_value=${encodeURIComponent(JSON.stringify({ env: 'v'.repeat(256) }))}`,
      'tag_key_value',
      '1 to 255 characters',
    ],
    [
      `?tag_key_value=${encodeURIComponent('{"env":"a\\tb"}')}`,
      'tag_key_value',
      'tabs or newlines',
    ],
    // keys equal once trimmed are one key given twice: refused, naming it (the last one won)
    [
      `?tag_key_value=${encodeURIComponent('{"a":"1"," a ":"2"}')}`,
      'tag_key_value',
      'Tag key "a" is given more than once',
    ],
    [`?tag_key=${'😀'.repeat(256)}`, 'tag_key.0', 'without whitespace'],
  ])('%s → 400 with invalid_fields.%s', async (query, field, message) => {
    const { status, body } = await getJson<{
      exception_class: string
      invalid_fields: Record<string, string[]>
    }>(`/cloud/v1/availablenetworks/1/1${query}`)
    expect(status).toBe(400)
    expect(body.exception_class).toBe('ValidationError')
    expect(body.invalid_fields[field]?.join(' ')).toContain(message)
  })

  it('accepts true, false, 1 and 0 in any case', async () => {
    for (const [query, external] of [
      ['?external=True', true],
      ['?external=1', true],
      ['?external=FALSE', false],
      ['?external=0', false],
    ] as const) {
      const { status, body } = await list(query)
      expect(status, query).toBe(200)
      expect(body.results.length, query).toBeGreaterThan(0)
      expect(
        body.results.every((n) => n.external === external),
        query,
      ).toBe(true)
    }
  })

  it('filters by a tag named __proto__ like any other tag (it was dropped: every network)', async () => {
    const { status, body } = await list(
      `?tag_key_value=${encodeURIComponent('{"__proto__":"zzz"}')}`,
    )
    expect(status).toBe(200)
    expect(body.count).toBe(0)
    expect((await list('?tag_key=__proto__')).body.count).toBe(0)
    expect((await list('?tag_key=constructor')).body.count).toBe(0)
  })

  it('counts tag lengths in characters: 255 emoji are a valid key and value', async () => {
    const emoji = '😀'.repeat(255)
    expect((await list(`?tag_key=${emoji}`)).status).toBe(200)
    const { status, body } = await list(
      `?tag_key_value=${encodeURIComponent(JSON.stringify({ [emoji]: emoji }))}`,
    )
    expect(status).toBe(200)
    expect(body.count).toBe(0)
  })

  it('validates path parameters', async () => {
    expect((await getJson('/cloud/v1/availablenetworks/x/1')).status).toBe(400)
  })
})

describe('GET /cloud/v1/networks/{project_id}/{region_id} (the successor the Link header names)', () => {
  it("is served: owned_by=any gives the deprecated listing's data, project only its own", async () => {
    const old = await api('/cloud/v1/availablenetworks/1/1?order_by=name.asc')
    const link = /<([^>]+)>; rel="successor-version"/.exec(old.headers.get('link') ?? '')?.[1]
    expect(link).toBe('/cloud/v1/networks/1/1?owned_by=any')
    const successor = await getJson<{
      count: number
      results: { id: string; project_id: number | null }[]
    }>(`${link}&order_by=name.asc`)
    expect(successor.status).toBe(200)
    expect(successor.res.headers.get('deprecation')).toBeNull()
    expect(successor.body).toEqual(await old.json())
    const own = await getJson<{ results: { project_id: number | null }[] }>(
      '/cloud/v1/networks/1/1',
    )
    expect(own.body.results.length).toBeGreaterThan(0)
    expect(own.body.results.every((n) => n.project_id === 1)).toBe(true)
    expect((await getJson('/cloud/v1/networks/1/1?owned_by=someone')).status).toBe(400)
  })
})
