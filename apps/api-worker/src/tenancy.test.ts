// Resources belong to a client account (4.11: "all domains of the account"; 4.4: the requests
// "that were sent"; a task, an AI task or an addendum carries its client): one client must
// neither list, read nor write another's, and "not yours" looks exactly like "not there".
import { describe, expect, it } from 'vitest'
import { api, CLIENT, getJson, OTHER_CLIENT, RESELLER } from '../test/client.ts'

type Domain = { id: number; name: string }
type Event = { id: string; domain_id: number }
type List<T> = { count: number; results: T[] }

const since = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString()
const domains = async (auth: string) =>
  (await getJson<List<Domain>>('/waap/v1/domains?limit=100', { auth })).body
const events = async (auth: string, query = '') =>
  (
    await getJson<List<Event>>(`/waap/v1/analytics/requests?start=${since(30)}&limit=100${query}`, {
      auth,
    })
  ).body
const aiTasks = async (auth: string, query = '') =>
  (await getJson<List<{ task_id: string }>>(`/streaming/ai/tasks?limit=1000${query}`, { auth }))
    .body
const cluster = (auth: string, project: number) =>
  api(`/cloud/v3/gpu/baremetal/${project}/1/clusters`, {
    auth,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      flavor: 'bm3-ai-1xlarge-h100-80-8',
      image_id: '6f1cd7a3-6a3e-4d2f-9a0c-1b2c3d4e5f60',
      name: 'tenant-test',
      servers_count: 1,
      servers_settings: { interfaces: [{ type: 'external' }] },
    }),
  })

describe('client accounts see only their own resources', () => {
  it('the second key acts for its own account (4.10)', async () => {
    const { status, body } = await getJson('/iam/clients/me', { auth: OTHER_CLIENT })
    expect(status).toBe(200)
    expect(body).toMatchObject({ id: 1002, company_name: 'Contoso Streaming', is_reseller: false })
  })

  it("the second client's login user (4.9) acts for it too", async () => {
    const login = await api('/iam/auth/jwt/login', {
      auth: null,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'second@example.com', password: 'emulator-password' }),
    })
    expect(login.status).toBe(200)
    const auth = `Bearer ${(await login.json<{ access: string }>()).access}`
    expect((await getJson('/iam/clients/me', { auth })).body).toMatchObject({ id: 1002 })
    expect((await aiTasks(auth)).count).toBe(40)
  })

  it('WAAP domains (4.13): disjoint per client, every one for the reseller', async () => {
    const mine = await domains(CLIENT)
    const theirs = await domains(OTHER_CLIENT)
    expect(mine.count).toBe(20)
    expect(theirs.count).toBe(4)
    const mineIds = mine.results.map((d) => d.id)
    expect(theirs.results.filter((d) => mineIds.includes(d.id))).toEqual([])
    expect((await domains(RESELLER)).count).toBe(24)
    // asking for another client's domain by id finds nothing
    const other = theirs.results[0]?.id
    expect((await getJson<List<Domain>>(`/waap/v1/domains?ids=${other}`)).body.count).toBe(0)
  })

  it('WAAP request log (4.11): only the events of the account, even when asked by domain', async () => {
    const theirDomains = (await domains(OTHER_CLIENT)).results.map((d) => d.id)
    const theirs = await events(OTHER_CLIENT)
    expect(theirs.count).toBeGreaterThan(0)
    expect(theirs.results.every((e) => theirDomains.includes(e.domain_id))).toBe(true)
    const mine = await events(CLIENT)
    expect(mine.count).toBe(10_000)
    expect(mine.results.some((e) => theirDomains.includes(e.domain_id))).toBe(false)
    expect((await events(CLIENT, `&domains=${theirDomains.join(',')}`)).count).toBe(0)
    const theirEvent = theirs.results[0] as Event
    expect((await events(CLIENT, `&request_ids=${theirEvent.id}`)).count).toBe(0)
    expect((await events(RESELLER)).count).toBe(mine.count + theirs.count)
  })

  it("WAAP details (4.12): another client's request is a 404, as an unknown one", async () => {
    const [mine, theirs] = [
      (await events(CLIENT)).results[0],
      (await events(OTHER_CLIENT)).results[0],
    ]
    const details = (e: Event | undefined, auth: string) =>
      getJson(`/waap/v1/domains/${e?.domain_id}/requests/${e?.id}/details`, { auth })
    expect((await details(mine, CLIENT)).status).toBe(200)
    expect((await details(theirs, OTHER_CLIENT)).status).toBe(200)
    expect((await details(theirs, RESELLER)).status).toBe(200)
    const refused = await details(theirs, CLIENT)
    expect(refused.status).toBe(404)
    expect(refused.body).toMatchObject({
      exception_class: 'NotFound',
      message: `Request ${theirs?.id} not found on domain ${theirs?.domain_id}.`,
    })
    expect((await details(mine, OTHER_CLIENT)).status).toBe(404)
  })

  it("AI tasks (4.8): a client lists and finds only its own; a task_id of another's finds nothing", async () => {
    const mine = await aiTasks(CLIENT)
    const theirs = await aiTasks(OTHER_CLIENT)
    expect(mine.count).toBe(1000)
    expect(theirs.count).toBe(40)
    const mineIds = new Set(mine.results.map((t) => t.task_id))
    expect(theirs.results.some((t) => mineIds.has(t.task_id))).toBe(false)
    const theirId = theirs.results[0]?.task_id
    expect((await aiTasks(CLIENT, `&task_id=${theirId}`)).count).toBe(0)
    expect((await aiTasks(CLIENT, `&search=${theirId}`)).count).toBe(0)
    expect((await aiTasks(OTHER_CLIENT, `&task_id=${theirId}`)).count).toBe(1)
    expect((await aiTasks(RESELLER)).count).toBe(1040)
  })

  it("networks (4.1): another client's project reads as one no one has; the reseller lists every one", async () => {
    type Networks = List<{ project_id: number | null }>
    for (const path of ['/cloud/v1/availablenetworks', '/cloud/v1/networks']) {
      const list = async (project: number, auth: string) => {
        const answer = await getJson<Networks>(`${path}/${project}/1`, { auth })
        expect(answer.status).toBe(200)
        return answer.body
      }
      // client 1001's project 1, to client 1002: exactly what project 99 (no one's) lists
      const theirs = await list(1, OTHER_CLIENT)
      expect(theirs.results.every((n) => n.project_id !== 1)).toBe(true)
      expect(theirs.count).toBe((await list(99, OTHER_CLIENT)).count)
      expect((await list(3, CLIENT)).count).toBe((await list(99, CLIENT)).count)
      const own = await list(1, CLIENT)
      expect(own.results.some((n) => n.project_id === 1)).toBe(true)
      expect((await list(1, RESELLER)).count).toBe(own.count)
    }
  })

  it("GPU clusters (4.2): a cluster's task is its creator's, whatever the project id", async () => {
    for (const [auth, project, clientId, other] of [
      [OTHER_CLIENT, 3, 1002, CLIENT],
      [OTHER_CLIENT, 1, 1002, CLIENT], // another client's project: as one no one has
      [CLIENT, 3, 1001, OTHER_CLIENT],
    ] as const) {
      const created = await cluster(auth, project)
      expect(created.status).toBe(200)
      const { tasks } = await created.json<{ tasks: string[] }>()
      const task = `/cloud/v1/tasks/${tasks[0]}`
      expect((await getJson(task, { auth })).body).toMatchObject({ client_id: clientId })
      expect((await getJson(task, { auth: RESELLER })).status).toBe(200)
      expect((await getJson(task, { auth: other })).status).toBe(404)
    }
  })

  it('addendums (4.7) and limit requests (4.4): each client its own', async () => {
    for (const [auth, id] of [
      [CLIENT, 1001],
      [OTHER_CLIENT, 1002],
    ] as const) {
      const addendums = (
        await getJson<List<{ client_id: number }>>('/billing/org/v1/addendums?limit=100', { auth })
      ).body
      expect(addendums.count).toBeGreaterThan(0)
      expect(addendums.results.every((a) => a.client_id === id)).toBe(true)
      const requests = (
        await getJson<List<{ client_id: number }>>('/cloud/v2/limits_request', { auth })
      ).body
      expect(requests.count).toBeGreaterThan(0)
      expect(requests.results.every((r) => r.client_id === id)).toBe(true)
    }
  })

  it("nothing offers a way to change or delete another client's resource (405 for every client)", async () => {
    const their = (await domains(OTHER_CLIENT)).results[0]?.id
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const res = await api('/waap/v1/domains', { method, auth: CLIENT })
      expect(res.status).toBe(405)
      // a resource path under another client's domain is no route either: nothing is confirmed
      const under = await api(`/waap/v1/domains/${their}`, { method, auth: CLIENT })
      expect(under.status).toBe(404)
    }
  })
})
