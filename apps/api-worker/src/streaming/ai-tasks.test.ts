import { describe, expect, it } from 'vitest'
import { getJson } from '../../test/client.ts'

type Task = {
  task_id: string
  task_name: string
  status: string
  created_at: string
  processing_time: { started_at: string | null; total_time_sec: number | null }
  task_data: Record<string, string>
}
type Page = { count: number; next: string; previous: string; results: Task[] }
const list = (query = '') => getJson<Page>(`/streaming/ai/tasks${query}`)
const everything = async () => (await list('?limit=1000')).body.results

describe('GET /streaming/ai/tasks (4.8)', () => {
  it('pages 10 at a time from page 1, newest started first, with query-string links', async () => {
    const { status, body } = await list()
    expect(status).toBe(200)
    expect(body.count).toBe(1000)
    expect(body.results).toHaveLength(10)
    expect(body.previous).toBe('')
    expect(body.next).toBe('?page=2')
    const started = (await everything())
      .map((t) => t.processing_time.started_at)
      .filter((s): s is string => s !== null)
    expect(started).toEqual([...started].sort().reverse())
    const second = (await list('?status=SUCCESS&page=2&limit=5')).body
    expect(second.previous).toBe('?status=SUCCESS&page=1&limit=5')
    expect(second.next).toBe('?status=SUCCESS&page=3&limit=5')
    const last = (await list('?page=100')).body
    expect(last.next).toBe('')
    expect(last.previous).toBe('?page=99')
    expect((await list('?page=101')).status).toBe(404)
  })

  // 4.8 types `next` and `previous` as strings (the query-string part), not "or null" as 4.7's
  // addendum links are: with no page on that side the part is empty, never null.
  it('answers next/previous as strings on every page: first, middle, last, only (never null)', async () => {
    const pages = {
      first: (await list('?limit=400')).body,
      middle: (await list('?limit=400&page=2')).body,
      last: (await list('?limit=400&page=3')).body,
      only: (await list('?limit=1000')).body,
      empty: (await list('?task_id=00000000-0000-4000-8000-000000000000')).body,
    }
    expect(pages.first).toMatchObject({ previous: '', next: '?limit=400&page=2' })
    expect(pages.middle).toMatchObject({ previous: '?limit=400&page=1', next: '?limit=400&page=3' })
    expect(pages.last).toMatchObject({ previous: '?limit=400&page=2', next: '' })
    expect(pages.only).toMatchObject({ previous: '', next: '' })
    expect(pages.empty).toMatchObject({ count: 0, previous: '', next: '', results: [] })
    // past the last page there is no page to describe: 404, as before
    const beyond = await list('?limit=400&page=4')
    expect(beyond.status).toBe(404)
    expect(beyond.body).toMatchObject({ exception_class: 'NotFound', message: 'Invalid page.' })
  })

  it('filters by task_id, task_name, status and date_created', async () => {
    const all = await everything()
    const pick = all[123] as Task
    expect((await list(`?task_id=${pick.task_id}`)).body.results.map((t) => t.task_id)).toEqual([
      pick.task_id,
    ])
    for (const [query, keep] of [
      ['task_name=content-moderation', (t: Task) => t.task_name === 'content-moderation'],
      ['status=REVOKED', (t: Task) => t.status === 'REVOKED'],
      [
        `date_created=${pick.created_at.slice(0, 10)}`,
        (t: Task) => t.created_at.slice(0, 10) === pick.created_at.slice(0, 10),
      ],
      [
        `date_created=${pick.created_at}`,
        (t: Task) => t.created_at.slice(0, 10) === pick.created_at.slice(0, 10),
      ],
    ] as const) {
      const { body } = await list(`?limit=1000&${query}`)
      expect(body.count, query).toBe(all.filter(keep).length)
      expect(body.count, query).toBeGreaterThan(0)
      expect(body.results.every(keep), query).toBe(true)
    }
  })

  it('searches task id, name, status and task data, case-insensitively and partially', async () => {
    const all = await everything()
    const pick = all[5] as Task
    const byId = (await list(`?search=${pick.task_id.slice(0, 13).toUpperCase()}`)).body.results
    expect(byId.map((t) => t.task_id)).toContain(pick.task_id)
    const byData = (await list('?limit=1000&search=deu')).body
    expect(byData.count).toBeGreaterThan(0)
    expect(byData.results.every((t) => JSON.stringify(t.task_data).includes('deu'))).toBe(true)
    const byStatus = (await list('?limit=1000&search=failure')).body.results
    expect(
      byStatus.every(
        (t) => t.status === 'FAILURE' || JSON.stringify(t).toLowerCase().includes('failure'),
      ),
    ).toBe(true)
  })

  it.each(['url', '"', '{', 'task_name'])(
    'matches values only: search=%s does not match every task through its JSON',
    async (search) => {
      const { count } = (await list(`?limit=1000&search=${encodeURIComponent(search)}`)).body
      expect(count).toBeLessThan(1000)
    },
  )

  it.each(['task_id', 'status', 'task_name'] as const)('orders ascending by %s', async (field) => {
    const values = (await list(`?limit=1000&ordering=${field}`)).body.results.map((t) => t[field])
    expect(values).toEqual([...values].sort())
  })

  it.each([
    ['?page=0', 'page'],
    ['?limit=0', 'limit'],
    ['?task_id=abc', 'task_id'],
    ['?status=DONE', 'status'],
    ['?task_name=translation', 'task_name'],
    ['?ordering=-started_at', 'ordering'],
    ['?date_created=yesterday', 'date_created'],
  ])('answers 400 for %s', async (query, field) => {
    const { status, body } = await getJson<{ invalid_fields: Record<string, string[]> }>(
      `/streaming/ai/tasks${query}`,
    )
    expect(status).toBe(400)
    expect(Object.keys(body.invalid_fields)).toContain(field)
  })
})
