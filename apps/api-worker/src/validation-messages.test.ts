// Fuzzed bad input across the families: every 400 speaks the API's language, never the
// validator's ("expected int to be <=9007199254740991", "received undefined").
import { describe, expect, it } from 'vitest'
import { api, RESELLER } from '../test/client.ts'

// 9007199254740991: JavaScript's largest safe integer, a runtime's bound, not the spec's int64
const INTERNALS =
  /expected .* to be|received|Invalid input|Too big|Too small|<=|>=|Unrecognized key|NaN|9007199254740991/

const BAD = [
  '99999999999999999999',
  '9007199254740993',
  '-1',
  '1.5',
  'abc',
  '',
  '%00',
  'x'.repeat(300),
]
const ENDPOINTS: [string, string[], string | undefined][] = [
  ['/cloud/v1/availablenetworks/1/1', ['limit', 'offset', 'order_by', 'network_type'], undefined],
  [
    '/cloud/v2/limits_request',
    ['limit', 'offset', 'created_from', 'status', 'request_ids'],
    undefined,
  ],
  ['/edge/v1/admin/apps', ['client_id', 'status', 'limit', 'offset', 'ordering', 'name'], RESELLER],
  ['/billing/org/v1/addendums', ['limit', 'offset', 'ordering', 'payer_id'], undefined],
  ['/streaming/ai/tasks', ['page', 'limit', 'ordering', 'search'], undefined],
  ['/waap/v1/domains', ['limit', 'offset', 'ids', 'status'], undefined],
  ['/waap/v1/analytics/requests', ['limit', 'offset', 'start', 'status_codes'], undefined],
]

describe('validation messages', () => {
  it('never leak validator internals', async () => {
    const leaks: string[] = []
    for (const [path, params, auth] of ENDPOINTS)
      for (const param of params)
        for (const value of BAD) {
          const res = await api(
            `${path}?${param}=${encodeURIComponent(value)}`,
            auth ? { auth } : {},
          )
          if (res.status >= 500)
            leaks.push(`${path}?${param}=${value.slice(0, 20)} → ${res.status}`)
          if (res.status !== 400) continue
          const text = await res.text()
          if (INTERNALS.test(text))
            leaks.push(`${path}?${param}=${value.slice(0, 20)} → ${text.slice(0, 200)}`)
        }
    expect(leaks).toEqual([])
  })

  it('offsets accept the int64 range of the spec, and state its bound beyond it', async () => {
    for (const path of ['/billing/org/v1/addendums', '/waap/v1/domains']) {
      const far = await api(`${path}?offset=9007199254740993`)
      expect(far.status).toBe(200) // a page past the end: empty, not an error
      const over = await api(`${path}?offset=9223372036854775808`)
      expect(over.status).toBe(400)
      expect(await over.text()).toContain(
        'offset: Ensure this value is less than or equal to 9223372036854775807.',
      )
    }
  })

  it('a missing required body field is "This field is required."', async () => {
    const res = await api('/cloud/v3/gpu/baremetal/1/1/clusters', {
      method: 'POST',
      body: JSON.stringify({}),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    const body = await res.json<{ invalid_fields: Record<string, string[]> }>()
    expect(body.invalid_fields.flavor).toEqual(['This field is required.'])
  })

  // A single-valued parameter given twice was answered "Not a valid string." (or, for an enum,
  // "Select a valid choice" listing the very value sent): nothing said it was the repetition.
  it.each([
    ['/streaming/ai/tasks?limit=1&limit=2', 'limit', undefined],
    ['/streaming/ai/tasks?task_name=transcription&task_name=transcription', 'task_name', undefined],
    ['/cloud/v1/availablenetworks/1/1?external=true&external=false', 'external', undefined],
    ['/cloud/v2/limits_request?offset=0&offset=1', 'offset', undefined],
    ['/billing/org/v1/addendums?company_name=a&company_name=b', 'company_name', undefined],
    [
      '/waap/v1/analytics/requests?start=2026-11-01T00:00:00Z&start=2026-11-02T00:00:00Z',
      'start',
      undefined,
    ],
    ['/waap/v1/domains?limit=1&limit=1&limit=1', 'limit', undefined],
    ['/edge/v1/admin/apps?limit=1&limit=2', 'limit', RESELLER],
  ])('%s: a 400 naming the parameter and that it was repeated', async (path, param, auth) => {
    const res = await api(path, auth ? { auth } : {})
    expect(res.status).toBe(400)
    const body = await res.json<{ error?: string; invalid_fields?: Record<string, string[]> }>()
    const times = path.split(`${param}=`).length - 1
    const message = `Given ${times} times: this parameter takes a single value.`
    if (auth) expect(body.error).toBe(`Validation Error: ${param}: ${message}`)
    else expect(body.invalid_fields?.[param]).toEqual([message])
  })

  it('a repeatable parameter given twice is still a list, and its bad item still named', async () => {
    expect((await api('/billing/org/v1/addendums?client_id=1001&client_id=1002')).status).toBe(200)
    expect((await api('/cloud/v2/limits_request?status=done&status=rejected')).status).toBe(200)
    const bad = await api('/billing/org/v1/addendums?ordering=bad&ordering=id')
    expect(bad.status).toBe(400)
    expect(await bad.text()).toContain('Unknown ordering')
  })
})
