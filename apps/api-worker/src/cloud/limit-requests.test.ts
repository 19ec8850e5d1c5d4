import { describe, expect, it } from 'vitest'
import { getJson, RESELLER } from '../../test/client.ts'

type Item = {
  id: number
  client_id: number
  status: string
  created_at: string
  requested_limits: { regional_limits: { region_id: number }[] }
}
type List = { count: number; results: Item[] }

describe('GET /cloud/reseller/v1/limits_request (4.3)', () => {
  const list = (query = '') =>
    getJson<List>(`/cloud/reseller/v1/limits_request${query}`, { auth: RESELLER })

  it("lists every client's requests, newest first, dates with Z", async () => {
    const { status, body } = await list()
    expect(status).toBe(200)
    expect(body.count).toBe(300)
    expect(new Set(body.results.map((r) => r.client_id)).size).toBeGreaterThan(5)
    expect(body.results[0]?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    const dates = body.results.map((r) => r.created_at)
    expect(dates).toEqual([...dates].sort().reverse())
    for (const r of body.results)
      for (const region of r.requested_limits.regional_limits)
        expect(region.region_id).toBeGreaterThan(0)
  })

  it('filters by client_id and repeated status; paginates', async () => {
    const one = (await list('?client_id=1001')).body
    expect(one.count).toBeGreaterThan(50)
    expect(one.results.every((r) => r.client_id === 1001)).toBe(true)
    const two = (await list('?status=done&status=rejected')).body
    expect(two.count).toBe(200)
    expect(two.results.every((r) => r.status !== 'in progress')).toBe(true)
    const page = (await list('?limit=10&offset=20')).body
    expect(page.count).toBe(300)
    expect(page.results.map((r) => r.id)).toEqual(
      (await list()).body.results.slice(20, 30).map((r) => r.id),
    )
  })

  it('needs a reseller credential (403 for a client one)', async () => {
    const { status, body } = await getJson('/cloud/reseller/v1/limits_request')
    expect(status).toBe(403)
    expect(body.exception_class).toBe('PermissionDenied')
  })

  it.each(['?limit=1001', '?limit=0', '?offset=-1', '?status=pending', '?client_id=abc'])(
    'rejects %s',
    async (query) => {
      expect((await list(query)).status).toBe(400)
    },
  )
})

describe('GET /cloud/v2/limits_request (4.4)', () => {
  const list = (query = '') => getJson<List>(`/cloud/v2/limits_request${query}`)

  it("lists only the caller's requests, dates without zone", async () => {
    const { status, body } = await list()
    expect(status).toBe(200)
    expect(body.count).toBeGreaterThan(50)
    expect(body.results.every((r) => r.client_id === 1001)).toBe(true)
    expect(body.results[0]?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/)
  })

  it('filters created_from / created_to inclusively, in any ISO 8601 form', async () => {
    const all = (await list()).body.results
    const pivot = all[10] as Item
    const from = (await list(`?created_from=${pivot.created_at}`)).body.results
    expect(from.map((r) => r.id)).toEqual(
      all.filter((r) => r.created_at >= pivot.created_at).map((r) => r.id),
    )
    expect(from.some((r) => r.id === pivot.id)).toBe(true)
    const to = (await list(`?created_to=${encodeURIComponent(`${pivot.created_at}+00:00`)}`)).body
      .results
    expect(to.some((r) => r.id === pivot.id)).toBe(true)
    expect(to.every((r) => r.created_at <= pivot.created_at)).toBe(true)
    const exact = (
      await list(
        `?created_from=${pivot.created_at}Z&created_to=${pivot.created_at.replace('T', '%20')}`,
      )
    ).body.results
    expect(exact.map((r) => r.id)).toContain(pivot.id)
  })

  it('filters by repeated request_ids and status', async () => {
    const all = (await list()).body.results
    const ids = all.slice(0, 3).map((r) => r.id)
    const byIds = (await list(`?request_ids=${ids[0]}&request_ids=${ids[1]},${ids[2]}`)).body
      .results
    expect(byIds.map((r) => r.id).sort()).toEqual([...ids].sort())
    expect((await list('?request_ids=99999')).body.count).toBe(0)
    // an empty item is no value: dropped, and a filter with none left is as if absent
    const total = (await list()).body.count
    for (const query of ['?request_ids=', '?request_ids=,', '?status=', '?request_ids=&status='])
      expect((await list(query)).body.count, query).toBe(total)
    expect((await list(`?request_ids=,${ids[0]},`)).body.results.map((r) => r.id)).toEqual([ids[0]])
    const inProgress = (await list('?status=in%20progress')).body.results
    expect(inProgress.length).toBeGreaterThan(0)
    expect(inProgress.every((r) => r.status === 'in progress')).toBe(true)
  })

  it.each([
    ['?created_from=yesterday', 'created_from'],
    ['?created_from=2026-02-30T00:00:00', 'created_from'],
    ['?created_from=2026-11-23T10:99:99', 'created_from'],
    [`?created_to=${encodeURIComponent('2026-11-23T10:46:46+99:99')}`, 'created_to'],
    ['?created_from=2026-11-02T00:00:00&created_to=2026-11-01T00:00:00', 'created_to'],
    ['?request_ids=x', 'request_ids.0'],
    ['?limit=1001', 'limit'],
  ])('rejects %s', async (query, field) => {
    const { status, body } = await getJson<{ invalid_fields: Record<string, string[]> }>(
      `/cloud/v2/limits_request${query}`,
    )
    expect(status).toBe(400)
    expect(Object.keys(body.invalid_fields)).toContain(field)
  })
})
