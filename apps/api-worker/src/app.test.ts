import { describe, expect, it } from 'vitest'
import { api } from '../test/client.ts'
import { MAX_BODY_BYTES } from './app.ts'

const CLUSTERS = '/cloud/v3/gpu/baremetal/1/1/clusters'
const cluster = (userData: string) =>
  JSON.stringify({
    flavor: 'bm3-ai-1xlarge-h100-80-8',
    image_id: '3d4c0f5e-9a6b-4c1d-8e2f-0a1b2c3d4e5f',
    name: 'big-cluster',
    servers_count: 1,
    servers_settings: { interfaces: [{ type: 'external' }], user_data: userData },
  })
const json = { 'content-type': 'application/json' }

describe('request body limit', () => {
  it('answers 413 in the cloud error shape for a body over 1 MiB (6 MB of user_data was a 500)', async () => {
    for (const size of [MAX_BODY_BYTES, 6_000_000]) {
      const res = await api(CLUSTERS, {
        method: 'POST',
        body: cluster('QUJD'.repeat(size / 4)),
        headers: json,
      })
      expect(res.status).toBe(413)
      expect(await res.json()).toMatchObject({
        exception_class: 'ContentTooLarge',
        message: expect.stringContaining('at most 1048576 bytes'),
        request_id: expect.any(String),
      })
    }
  })

  it('counts a body sent without Content-Length as it arrives', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024))
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk)
        else controller.close()
      },
    })
    const res = await api(CLUSTERS, { method: 'POST', body, headers: json })
    expect(res.status).toBe(413)
  })

  it('answers 413 in the login shape on the login method', async () => {
    const res = await api('/iam/auth/jwt/login', {
      method: 'POST',
      auth: null,
      body: JSON.stringify({ username: 'x'.repeat(MAX_BODY_BYTES), password: 'p' }),
      headers: json,
    })
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual({
      errors: { non_field_errors: [expect.stringContaining('too large')] },
    })
  })

  it('reads a body of exactly 1 MiB', async () => {
    const body = cluster('QUJD')
    const res = await api(CLUSTERS, {
      method: 'POST',
      body: body + ' '.repeat(MAX_BODY_BYTES - body.length), // JSON whitespace up to the limit
      headers: json,
    })
    expect(res.status).toBe(200)
  })
})
