import { describe, expect, it, vi } from 'vitest'
import { getJson } from '../../test/client.ts'
import { RETENTION_MS } from './waap.ts'

type Event = {
  id: string
  decision: string
  optional_action: string
  client_ip: string
  country: string
  domain: string
  domain_id: number
  method: string
  path: string
  rule_name: string
  status_code: number
  request_time: number
  reference_id: string
  session_id: string
}
type Page = { count: number; limit: number; offset: number; results: Event[] }
const DAY = 86_400_000
const since = (days: number) => new Date(Date.now() - days * DAY).toISOString()
const requests = (query: string) =>
  getJson<Page>(`/waap/v1/analytics/requests?start=${since(30)}&${query}`)
const everything = async () => {
  const all: Event[] = []
  for (let offset = 0; ; offset += 100) {
    const { body } = await requests(`limit=100&offset=${offset}`)
    all.push(...body.results)
    if (all.length >= body.count) return all
  }
}

describe('GET /waap/v1/analytics/requests (4.11)', () => {
  it('lists 30 days of 10,000 events, newest first, echoing limit and offset', async () => {
    const { status, body } = await requests('')
    expect(status).toBe(200)
    expect(body).toMatchObject({ count: 10_000, limit: 100, offset: 0 })
    const times = body.results.map((e) => e.request_time)
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(Number.isInteger(times[0])).toBe(true)
    const page = (await requests('limit=5&offset=10')).body
    expect(page).toMatchObject({ limit: 5, offset: 10 })
    expect(page.results.map((e) => e.id)).toEqual(body.results.slice(10, 15).map((e) => e.id))
  })

  it('requires start, defaults end to now, and treats an older start as the 30-day window', async () => {
    const missing = await getJson<{ invalid_fields: Record<string, string[]> }>(
      '/waap/v1/analytics/requests',
    )
    expect(missing.status).toBe(400)
    expect(missing.body.invalid_fields.start).toBeDefined()
    expect((await getJson<Page>(`/waap/v1/analytics/requests?start=${since(90)}`)).body.count).toBe(
      10_000,
    )
    const lastDay = (await getJson<Page>(`/waap/v1/analytics/requests?start=${since(1)}`)).body
    expect(lastDay.count).toBeGreaterThan(100)
    expect(lastDay.count).toBeLessThan(1000)
    const window = (
      await getJson<Page>(`/waap/v1/analytics/requests?start=${since(3)}&end=${since(2)}`)
    ).body
    expect(
      window.results.every(
        (e) =>
          e.request_time >= Date.now() - 3 * DAY - 60_000 && e.request_time <= Date.now() - 2 * DAY,
      ),
    ).toBe(true)
    const backwards = await getJson(`/waap/v1/analytics/requests?start=${since(1)}&end=${since(2)}`)
    expect(backwards.status).toBe(400)
  })

  it('blames start, not the end nobody sent, for a start in the future', async () => {
    const { status, body } = await getJson<{ invalid_fields: Record<string, string[]> }>(
      `/waap/v1/analytics/requests?start=${since(-1)}`,
    )
    expect(status).toBe(400)
    expect(body.invalid_fields).toEqual({
      start: ['Must not be in the future (end defaults to now).'],
    })
    const future = await getJson<Page>(
      `/waap/v1/analytics/requests?start=${since(-1)}&end=${since(-2)}`,
    )
    expect(future.status).toBe(200)
    expect(future.body.count).toBe(0)
  })

  it('ignores empty list filters (an all-empty one is as if absent)', async () => {
    for (const query of ['request_ids=', 'request_ids=,', 'decision=&countries=,,', 'domains= '])
      expect((await requests(query)).body.count, query).toBe(10_000)
    const e = (await requests('limit=1')).body.results[0] as Event
    expect((await requests(`request_ids=,${e.id},`)).body.results.map((x) => x.id)).toEqual([e.id])
  })

  it('applies every filter, repeated and comma-separated', async () => {
    const all = await everything()
    const e = all[42] as Event
    const other = all.find((x) => x.session_id !== e.session_id) as Event
    const cases: [string, (x: Event) => boolean][] = [
      [`domains=${e.domain_id}`, (x) => x.domain_id === e.domain_id],
      [
        'decision=blocked&decision=monitored',
        (x) => x.decision === 'blocked' || x.decision === 'monitored',
      ],
      ['optional_action=captcha', (x) => x.optional_action === 'captcha'],
      ['optional_action=captcha&optional_action=challenge', (x) => x.optional_action !== ''],
      ['optional_action=challenge,captcha', (x) => x.optional_action !== ''],
      [
        'decision=blocked,passed&decision=allowed',
        (x) => x.decision === 'blocked' || x.decision === 'passed' || x.decision === 'allowed',
      ],
      [`ips=${e.client_ip}`, (x) => x.client_ip === e.client_ip],
      ['countries=de,fr', (x) => x.country === 'DE' || x.country === 'FR'],
      ['path=/api/*', (x) => x.path.startsWith('/api/')],
      ['path=/log?n', (x) => x.path === '/login'],
      [
        'http_methods=TRACE&http_methods=OPTIONS',
        (x) => x.method === 'TRACE' || x.method === 'OPTIONS',
      ],
      ['status_codes=403', (x) => x.status_code === 403],
      [`request_ids=${e.id}`, (x) => x.id === e.id],
      [
        `reference_ids=${e.reference_id},${other.reference_id}`,
        (x) => x.reference_id === e.reference_id || x.reference_id === other.reference_id,
      ],
      [
        `session_ids=${e.session_id}&session_ids=${other.session_id}`,
        (x) => x.session_id === e.session_id || x.session_id === other.session_id,
      ],
      [
        'decision=passed&status_codes=500&countries=US',
        (x) => x.decision === 'passed' && x.status_code === 500 && x.country === 'US',
      ],
    ]
    for (const [query, keep] of cases) {
      const { body } = await requests(`limit=100&${query}`)
      const expected = all.filter(keep)
      expect(expected.length, query).toBeGreaterThan(0)
      expect(body.count, query).toBe(expected.length)
      expect(
        body.results.map((x) => x.id),
        query,
      ).toEqual(expected.slice(0, 100).map((x) => x.id))
    }
  })

  it('answers a path of 2000 stars and # at once, as the glob it is (a RegExp never returned)', async () => {
    const stars = await requests(`path=${encodeURIComponent(`${'*'.repeat(2000)}#`)}`)
    expect(stars.status).toBe(200)
    expect(stars.body.count).toBe(0)
    expect((await requests(`path=${'*'.repeat(2048)}`)).body.count).toBe(10_000)
    const api = (await requests('path=/api/*')).body.count
    expect(api).toBeGreaterThan(0)
    expect((await requests(`path=${'*'.repeat(500)}/api/${'*'.repeat(500)}`)).body.count).toBe(api)
    // case-sensitive, as before
    expect((await requests('path=/API/*')).body.count).toBe(0)
  })

  it.each([
    'aa',
    'abc',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '::::',
    '1:2:3',
    'fe80::1%eth0',
  ])(
    'refuses ips=%s, not an IP address, with 400 "Enter a valid IPv4 or IPv6 address."',
    async (ip) => {
      const { status, body } = await getJson<{ invalid_fields: Record<string, string[]> }>(
        `/waap/v1/analytics/requests?start=${since(1)}&ips=${encodeURIComponent(ip)}`,
      )
      expect(status).toBe(400)
      expect(body.invalid_fields).toEqual({ 'ips.0': ['Enter a valid IPv4 or IPv6 address.'] })
    },
  )

  it('takes IPv6 addresses in any case and form, and finds an IPv4 one', async () => {
    for (const ip of ['2001:DB8:0::1', '::1', '::ffff:203.0.113.7']) {
      const { status, body } = await requests(`ips=${encodeURIComponent(ip)}`)
      expect(status, ip).toBe(200)
      expect(body.count, ip).toBe(0)
    }
    const e = (await requests('limit=1')).body.results[0] as Event
    expect((await requests(`ips=aa::1,${e.client_ip}`)).body.results[0]?.client_ip).toBe(
      e.client_ip,
    )
  })

  it.each([
    ['decision=denied', 'decision.0'],
    ['optional_action=block', 'optional_action.0'],
    ['http_methods=FETCH', 'http_methods.0'],
    ['status_codes=99', 'status_codes.0'],
    ['countries=DEU', 'countries.0'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
    ['end=soon', 'end'],
  ])('answers 400 for %s', async (query, field) => {
    const { status, body } = await getJson<{ invalid_fields: Record<string, string[]> }>(
      `/waap/v1/analytics/requests?start=${since(1)}&${query}`,
    )
    expect(status).toBe(400)
    expect(Object.keys(body.invalid_fields)).toContain(field)
  })
})

describe('GET /waap/v1/domains/{domain_id}/requests/{request_id}/details (4.12)', () => {
  it('matches the list record and adds the expanded fields', async () => {
    const events = (await requests('decision=blocked&limit=5')).body.results
    for (const e of events) {
      const { status, body } = await getJson<Record<string, unknown>>(
        `/waap/v1/domains/${e.domain_id}/requests/${e.id}/details`,
      )
      expect(status).toBe(200)
      expect(body).toMatchObject({
        id: e.id,
        path: e.path,
        method: e.method,
        decision: e.decision,
        optional_action: e.optional_action,
        rule_name: e.rule_name,
        http_status_code: e.status_code,
        reference_id: e.reference_id,
        session_id: e.session_id,
        request_time: new Date(e.request_time).toISOString(),
        network: { ip: e.client_ip, organization: expect.any(String) },
        scheme: 'https',
      })
      expect(body.response_time).toMatch(/^\d+ms$/)
      expect(body.incident_id).toBe(
        e.optional_action === 'challenge' ? expect.stringMatching(/^inc-/) : '',
      )
      expect((body.pattern_matched_tags as string[]).length).toBeGreaterThan(0)
    }
  })

  it('answers 404 past the 30-day retention, as the list leaves the request out', async () => {
    const { count } = (await requests('limit=1')).body
    const oldest = (await requests(`limit=1&offset=${count - 1}`)).body.results[0] as Event
    const details = `/waap/v1/domains/${oldest.domain_id}/requests/${oldest.id}/details`
    expect((await getJson(details)).status).toBe(200)
    // a minute past the oldest request's 30 days: the list drops it, so must the details
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(oldest.request_time + RETENTION_MS + 60_000)
      expect((await requests(`request_ids=${oldest.id}`)).body.count).toBe(0)
      const gone = await getJson(details)
      expect(gone.status).toBe(404)
      expect(gone.body).toMatchObject({ exception_class: 'NotFound' })
    } finally {
      vi.useRealTimers()
    }
  })

  it('answers 404 on another domain or an unknown id', async () => {
    const e = (await requests('limit=1')).body.results[0] as Event
    expect(
      (await getJson(`/waap/v1/domains/${e.domain_id + 1}/requests/${e.id}/details`)).status,
    ).toBe(404)
    expect((await getJson(`/waap/v1/domains/${e.domain_id}/requests/nope/details`)).status).toBe(
      404,
    )
  })
})

describe('GET /waap/v1/domains (4.13)', () => {
  type Domains = {
    limit: number
    offset: number
    count: number
    results: { id: number; name: string; status: string }[]
  }
  const domains = (query = '') => getJson<Domains>(`/waap/v1/domains${query}`)

  it('lists 20 domains with every status', async () => {
    const { body } = await domains()
    expect(body).toMatchObject({ limit: 100, offset: 0, count: 20 })
    expect(new Set(body.results.map((d) => d.status))).toEqual(
      new Set(['active', 'bypass', 'monitor', 'locked']),
    )
  })

  it('filters by ids, name (substring or * wildcard, any case) and status; orders and pages', async () => {
    const all = (await domains()).body.results
    const [a, b] = all as [Domains['results'][0], Domains['results'][0]]
    expect((await domains(`?ids=${a.id}&ids=${b.id}`)).body.results.map((d) => d.id)).toEqual([
      a.id,
      b.id,
    ])
    expect(
      (await domains('?name=API.*')).body.results.every((d) => d.name.startsWith('api.')),
    ).toBe(true)
    expect(
      (await domains('?name=CONTOSO')).body.results.every((d) => d.name.includes('contoso')),
    ).toBe(true)
    expect((await domains('?status=locked')).body.results.every((d) => d.status === 'locked')).toBe(
      true,
    )
    const names = (await domains('?ordering=-name')).body.results.map((d) => d.name)
    expect(names).toEqual([...names].sort().reverse())
    expect((await domains('?limit=5&offset=5')).body.results.map((d) => d.id)).toEqual(
      all.slice(5, 10).map((d) => d.id),
    )
  })

  it('answers a name of many stars and # at once, in any case, as the glob it is', async () => {
    const stars = await domains(`?name=${encodeURIComponent(`${'*'.repeat(254)}#`)}`)
    expect(stars.status).toBe(200)
    expect(stars.body.count).toBe(0)
    const api = (await domains('?name=api.*')).body.count
    expect(api).toBeGreaterThan(0)
    expect((await domains(`?name=${'*'.repeat(100)}API.${'*'.repeat(100)}`)).body.count).toBe(api)
  })

  it.each(['?limit=101', '?status=paused', '?ordering=colour', '?ids=x'])(
    'answers 400 for %s',
    async (query) => {
      expect((await domains(query)).status).toBe(400)
    },
  )
})
