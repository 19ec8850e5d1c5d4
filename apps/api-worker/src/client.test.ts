import { exports } from 'cloudflare:workers'
import { hc } from 'hono/client'
import { describe, expect, it } from 'vitest'
import type { ApiApp } from './index.ts'

// The typed-client example of docs/api-emulator.md, run against the deployed entry point inside workerd.
describe('hc<ApiApp>', () => {
  it('calls the emulator with typed paths, queries and responses', async () => {
    const api = hc<ApiApp>('http://api.test', {
      headers: { Authorization: 'APIKey test-client-key' },
      fetch: (input: RequestInfo | URL, init?: RequestInit) => exports.default.fetch(input, init),
    })
    const res = await api.cloud.v1.availablenetworks[':project_id'][':region_id'].$get({
      param: { project_id: '1', region_id: '1' },
      query: { limit: '2', order_by: 'name.asc' },
    })
    expect(res.status).toBe(200)
    if (res.status !== 200) return
    const body = await res.json()
    expect(body.results).toHaveLength(2)
    expect(typeof body.results[0]?.subnets[0]?.cidr).toBe('string')

    const tasks = await api.streaming.ai.tasks.$get({ query: { status: 'SUCCESS', limit: '3' } })
    if (tasks.status !== 200) throw new Error(`unexpected ${tasks.status}`)
    expect((await tasks.json()).results.every((t) => t.status === 'SUCCESS')).toBe(true)
  })
})
