import { describe, expect, it } from 'vitest'
import { getJson, RESELLER } from '../../test/client.ts'

type Addendum = {
  id: number
  addendum_id: string
  client_id: number
  client: { company_name: string }
  active_range: { start: string; end: string }
  created_at: string
  currency: { id: number; char_code: string }
  plan: { id: number; name: string }
  product: { id: number; name: string; internal_name: string }
  status_at_active_at: string
  payer_id: number | null
  provider_id: number
}
type Page = { count: number; next: string | null; previous: string | null; results: Addendum[] }
const list = (query = '', auth = RESELLER) =>
  getJson<Page>(`/billing/org/v1/addendums${query}`, { auth })
const all = async () => {
  const items: Addendum[] = []
  for (let offset = 0; ; offset += 100) {
    const { body } = await list(`?limit=100&offset=${offset}`)
    items.push(...body.results)
    if (!body.next) return items
  }
}
const ms = (iso: string) => Date.parse(iso)

describe('GET /billing/org/v1/addendums (4.7)', () => {
  it('pages with absolute next/previous URLs; a client sees only its own', async () => {
    const first = (await list('?limit=100')).body
    expect(first.count).toBe(400)
    expect(first.previous).toBeNull()
    expect(first.next).toBe('http://api.test/billing/org/v1/addendums?limit=100&offset=100')
    const second = (await list('?limit=100&offset=100')).body
    expect(second.previous).toBe('http://api.test/billing/org/v1/addendums?limit=100')
    const own = (await list('?limit=100', 'APIKey test-client-key')).body
    expect(own.count).toBeGreaterThanOrEqual(100)
    expect(own.results.every((a) => a.client_id === 1001)).toBe(true)
    const items = await all()
    expect(new Set(items.map((a) => a.status_at_active_at))).toEqual(
      new Set(['upcoming', 'active', 'paused', 'stopped']),
    )
    expect(new Set(items.map((a) => a.product.id)).size).toBe(26)
  })

  it('applies the list, id and text filters', async () => {
    const items = await all()
    const x = items[17] as Addendum
    const cases: [string, (a: Addendum) => boolean][] = [
      [
        `addendum_id=${x.addendum_id}&addendum_id=${(items[3] as Addendum).addendum_id}`,
        (a) => [x.addendum_id, (items[3] as Addendum).addendum_id].includes(a.addendum_id),
      ],
      [`id=${x.id}`, (a) => a.id === x.id],
      ['client_id=1001&client_id=1002', (a) => a.client_id === 1001 || a.client_id === 1002],
      ['company_name=WIND', (a) => a.client.company_name.toLowerCase().includes('wind')],
      ['currency_char_code=EUR', (a) => a.currency.char_code === 'EUR'],
      ['currency_id=1', (a) => a.currency.id === 1],
      ['payer_id=null', (a) => a.payer_id === null],
      ['payer_id=null&payer_id=1003', (a) => a.payer_id === null || a.payer_id === 1003],
      [`plan_id=${x.plan.id}`, (a) => a.plan.id === x.plan.id],
      ['plan_name=use', (a) => a.plan.name.toLowerCase().includes('use')],
      ['product_id=23&product_id=65', (a) => a.product.id === 23 || a.product.id === 65],
      ['product_internal_name=FAST_EDGE', (a) => a.product.internal_name === 'FAST_EDGE'],
      ['product_name=cloud', (a) => a.product.name.toLowerCase().includes('cloud')],
      ['provider_id=2', (a) => a.provider_id === 2],
      [
        'status=paused&status=upcoming',
        (a) => a.status_at_active_at === 'paused' || a.status_at_active_at === 'upcoming',
      ],
    ]
    for (const [query, keep] of cases) {
      const { body } = await list(`?limit=100&${query}`)
      const expected = items.filter(keep)
      expect(expected.length, query).toBeGreaterThan(0)
      expect(body.count, query).toBe(expected.length)
    }
    expect((await list('?reseller_id=5000')).body.count).toBe(400)
    expect((await list('?reseller_id=1')).body.count).toBe(0)
  })

  it('every active_range has a start and an end, both date-times (spec 2.7)', async () => {
    const items = await all()
    for (const { active_range } of items) {
      expect(Number.isNaN(ms(active_range.start))).toBe(false)
      expect(Number.isNaN(ms(active_range.end))).toBe(false)
      expect(ms(active_range.end)).toBeGreaterThan(ms(active_range.start))
    }
  })

  it('applies the date-time filters: active_at / not_active_at, ranges, creation', async () => {
    const items = await all()
    const now = Date.now()
    const t = new Date(now - 30 * 86_400_000).toISOString()
    const at = ms(t)
    const active = (a: Addendum) => ms(a.active_range.start) <= at && ms(a.active_range.end) > at
    const onAt = (await list(`?limit=100&active_at=${t}`)).body
    expect(onAt.count).toBe(items.filter(active).length)
    expect(
      onAt.results.every(
        (a) => a.status_at_active_at === 'active' || a.status_at_active_at === 'paused',
      ),
    ).toBe(true)
    expect((await list(`?not_active_at=${t}`)).body.count).toBe(400 - onAt.count)
    const count = async (query: string) => (await list(`?${query}`)).body.count
    expect(await count(`active_after=${t}`)).toBe(
      items.filter((a) => ms(a.active_range.end) > at).length,
    )
    expect(await count(`active_before=${t}`)).toBe(
      items.filter((a) => ms(a.active_range.start) < at).length,
    )
    expect(await count(`active_start_from=${t}`)).toBe(
      items.filter((a) => ms(a.active_range.start) >= at).length,
    )
    expect(await count(`active_start_to=${t}`)).toBe(
      items.filter((a) => ms(a.active_range.start) <= at).length,
    )
    expect(await count(`active_end_from=${t}`)).toBe(
      items.filter((a) => a.active_range.end !== null && ms(a.active_range.end) >= at).length,
    )
    expect(await count(`active_end_to=${t}`)).toBe(
      items.filter((a) => a.active_range.end !== null && ms(a.active_range.end) <= at).length,
    )
    expect(await count(`created_after=${t}`)).toBe(
      items.filter((a) => ms(a.created_at) > at).length,
    )
    expect(await count(`created_before=${t}`)).toBe(
      items.filter((a) => ms(a.created_at) < at).length,
    )
    const x = items[9] as Addendum
    expect(await count(`created_on=${x.created_at.slice(0, 10)}`)).toBe(
      items.filter((a) => a.created_at.slice(0, 10) === x.created_at.slice(0, 10)).length,
    )
  })

  it('accepts offsets, a space instead of T, and date-only where documented', async () => {
    const base = '2026-06-01T12:00:00Z'
    const expected = (await list(`?created_after=${base}`)).body.count
    expect(
      (await list(`?created_after=${encodeURIComponent('2026-06-01T14:00:00+02:00')}`)).body.count,
    ).toBe(expected)
    expect((await list('?created_after=2026-06-01%2012:00:00')).body.count).toBe(expected)
    expect((await list('?active_after=2026-06-01')).status).toBe(200)
    expect((await list('?active_at=2026-06-01')).status).toBe(400)
  })

  it('orders by several comma-separated keys', async () => {
    const items = (await list('?limit=100&ordering=product_id,-created_at')).body.results
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1] as Addendum, items[i] as Addendum]
      expect(a.product.id <= b.product.id).toBe(true)
      if (a.product.id === b.product.id) expect(a.created_at >= b.created_at).toBe(true)
    }
    const names = (await list('?limit=100&ordering=-plan_name')).body.results.map(
      (a) => a.plan.name,
    )
    expect(names).toEqual([...names].sort().reverse())
  })

  it('accepts repeated ordering as well as comma-separated, in order', async () => {
    const comma = (await list('?limit=100&ordering=product_id,-created_at')).body.results
    const repeated = (await list('?limit=100&ordering=product_id&ordering=-created_at')).body
      .results
    expect(repeated.map((a) => a.id)).toEqual(comma.map((a) => a.id))
    const mixed = (await list('?limit=100&ordering=-product_id&ordering=created_at,-id')).body
      .results
    for (let i = 1; i < mixed.length; i++) {
      const [a, b] = [mixed[i - 1] as Addendum, mixed[i] as Addendum]
      expect(a.product.id >= b.product.id).toBe(true)
      if (a.product.id === b.product.id) expect(a.created_at <= b.created_at).toBe(true)
    }
  })

  it('takes any int64 for id, plan_id and payer_id (the spec bounds only client_id and provider_id)', async () => {
    for (const query of [
      '?plan_id=2147483648',
      '?payer_id=3000000000',
      '?payer_id=-9223372036854775808',
      '?id=0',
      '?id=-5',
      '?id=9223372036854775807',
    ]) {
      const { status, body } = await list(query)
      expect(status, query).toBe(200)
      expect(body.count, query).toBe(0)
    }
    const bad = await getJson<{ invalid_fields: Record<string, string[]> }>(
      '/billing/org/v1/addendums?payer_id=abc&plan_id=1.5&id=9223372036854775808',
      { auth: RESELLER },
    )
    expect(bad.status).toBe(400)
    expect(bad.body.invalid_fields).toEqual({
      'payer_id.0': ['A valid integer or "null" is required.'],
      'plan_id.0': ['A valid integer is required.'],
      id: ['Ensure this value is less than or equal to 9223372036854775807.'],
    })
  })

  it('ignores empty list filters (an all-empty one is as if absent)', async () => {
    const total = (await list()).body.count
    for (const query of ['?status=', '?status=,', '?plan_id=&payer_id=', '?ordering=,'])
      expect((await list(query)).body.count, query).toBe(total)
  })

  it.each([
    ['?limit=101', 'limit'],
    ['?offset=-1', 'offset'],
    ['?ordering=price', 'ordering'],
    ['?ordering=id,-nope', 'ordering'],
    ['?status=deleted', 'status.0'],
    ['?currency_char_code=GBP', 'currency_char_code.0'],
    ['?currency_id=3', 'currency_id.0'],
    ['?product_id=24', 'product_id.0'],
    ['?product_internal_name=NOPE', 'product_internal_name.0'],
    ['?client_id=2147483648', 'client_id.0'],
    ['?created_on=2026-13-01', 'created_on'],
    // impossible times are refused, not rolled over into another instant
    ['?created_after=2026-01-01T10:61:00Z', 'created_after'],
    ['?active_at=2026-11-23T10:99:99', 'active_at'],
    [`?created_before=${encodeURIComponent('2026-11-23T10:46:46+99:99')}`, 'created_before'],
    ['?active_start_from=2026-11-23T24:00:00Z', 'active_start_from'],
    ['?active_end_to=2026-06-01', 'active_end_to'],
  ])('answers 400 for %s', async (query, field) => {
    const { status, body } = await getJson<{ invalid_fields: Record<string, string[]> }>(
      `/billing/org/v1/addendums${query}`,
      { auth: RESELLER },
    )
    expect(status).toBe(400)
    expect(Object.keys(body.invalid_fields)).toContain(field)
  })
})
