import { describe, expect, it } from 'vitest'
import { NOW_MS, testEnv } from '../test/helpers.ts'
import { createTokenApp } from './app.ts'

// Inside workerd: without IP_HEADERS the viewer is CF-Connecting-IP, which Cloudflare sets (and
// overwrites) for every request; the headers a caller may write are not read.
const app = createTokenApp({ now: () => NOW_MS, audit: () => undefined })
const clientIpOf = async (
  headers: Record<string, string>,
  env = testEnv({ IP_HEADERS: undefined }),
) =>
  (
    (await (await app.request('/token?video=demo', { headers }, env)).json()) as {
      client_ip: string
    }
  ).client_ip

describe('the viewer address on Workers', () => {
  it('is CF-Connecting-IP by default, never X-Real-IP or X-Forwarded-For', async () => {
    expect(
      await clientIpOf({
        'cf-connecting-ip': '203.0.113.70',
        'x-real-ip': '198.51.100.1',
        'x-forwarded-for': '198.51.100.2',
      }),
    ).toBe('203.0.113.70')
    expect(await clientIpOf({ 'x-real-ip': '198.51.100.1' })).toBe('0.0.0.0')
  })

  it('an IPv4-mapped address counts as its IPv4 address', async () => {
    expect(await clientIpOf({ 'cf-connecting-ip': '::ffff:203.0.113.71' })).toBe('203.0.113.71')
  })

  it('IP_HEADERS reads the headers it names, in order (behind a proxy that overwrites them)', async () => {
    const env = testEnv({ IP_HEADERS: 'x-real-ip,x-forwarded-for' })
    expect(await clientIpOf({ 'x-forwarded-for': '198.51.100.3, 10.0.0.1' }, env)).toBe(
      '198.51.100.3',
    )
  })

  it('IP_HEADERS with TRUSTED_PROXIES is refused: choose one', async () => {
    const env = testEnv({ IP_HEADERS: 'x-real-ip', TRUSTED_PROXIES: '10.0.0.0/8' })
    const res = await app.request('/token?video=demo', {}, env)
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({
      error: expect.stringContaining('IP_HEADERS cannot be combined with TRUSTED_PROXIES'),
    })
  })

  it('TRUSTED_PROXIES must be addresses or CIDR ranges', async () => {
    const res = await app.request(
      '/token?video=demo',
      {},
      testEnv({ TRUSTED_PROXIES: '10.0.0.0/8, proxy.internal' }),
    )
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({
      error: expect.stringContaining(
        'TRUSTED_PROXIES must be a comma-separated list of addresses or CIDR ranges',
      ),
    })
  })
})
