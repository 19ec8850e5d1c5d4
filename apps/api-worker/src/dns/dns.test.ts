import { env } from 'cloudflare:test'
import { sign } from 'hono/jwt'
import { describe, expect, it } from 'vitest'
import { getJson } from '../../test/client.ts'

// Each test has its own credential (a JWT with its own subject), so rate limits never collide.
const credential = async (sub: string) => {
  const now = Math.floor(Date.now() / 1000)
  const claims = {
    sub,
    client_id: 1001,
    kind: 'client',
    token_type: 'access',
    iat: now,
    exp: now + 300,
  }
  return `Bearer ${await sign(claims, env.JWT_SECRET, 'HS256')}`
}
type Delegation = {
  authoritative_name_servers: { name: string; ipv4Addresses: string[]; ipv6Addresses: string[] }[]
  service_authorized_count: number
  non_service_authorized_count: number
  is_whitelabel_delegation: boolean
  zone_exists: boolean
}
const status = async (name: string, auth: string) =>
  getJson<Delegation>(`/dns/v2/analyze/${name}/delegation-status`, { auth })

describe('GET /dns/v2/analyze/{name}/delegation-status (4.5)', () => {
  it('answers the same for the same zone (any case, trailing dot), with consistent counts', async () => {
    const auth = await credential('dns-same')
    const a = await status('example.com', auth)
    expect(a.status).toBe(200)
    expect((await status('EXAMPLE.com.', auth)).body).toEqual(a.body)
    const { body } = a
    expect(body.authoritative_name_servers).toHaveLength(
      body.service_authorized_count + body.non_service_authorized_count,
    )
    expect(
      body.authoritative_name_servers.filter((ns) => ns.name.includes('edge-dns')),
    ).toHaveLength(body.service_authorized_count)
  })

  it('varies across zones: some exist, some do not, some are delegated to the service', async () => {
    const results: Delegation[] = []
    for (let i = 0; i < 12; i++) {
      const auth = await credential(`dns-vary-${i}`)
      results.push((await status(`zone-${i}.example`, auth)).body)
    }
    expect(results.some((r) => r.zone_exists)).toBe(true)
    expect(results.some((r) => !r.zone_exists)).toBe(true)
    expect(results.some((r) => r.service_authorized_count > 0)).toBe(true)
    expect(
      (await status('nothing.invalid', await credential('dns-invalid'))).body.zone_exists,
    ).toBe(false)
  })

  it('rate limits per credential with 429 and Retry-After (test limit 3 per 2 s)', async () => {
    const auth = await credential('dns-limit')
    for (let i = 0; i < 3; i++) expect((await status('example.org', auth)).status).toBe(200)
    const limited = await status('example.org', auth)
    expect(limited.status).toBe(429)
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(limited.body).toMatchObject({ exception_class: 'Throttled' })
    expect((await status('example.org', await credential('dns-limit-other'))).status).toBe(200)
  })

  it.each([
    'example.xn--p1ai',
    'xn--e1afmkfd.xn--p1ai',
    'EXAMPLE.XN--P1AI.',
    'shop.example.xn--80asehdb',
    `a.xn--${'a1-b'.repeat(14)}abc`, // a 63-character A-label
  ])('accepts %j, a punycode (IDNA A-label) top-level domain', async (name) => {
    const { status: code, body } = await getJson<Delegation>(
      `/dns/v2/analyze/${encodeURIComponent(name)}/delegation-status`,
      { auth: await credential(`dns-idn-${name}`) },
    )
    expect(code).toBe(200)
    expect(typeof body.zone_exists).toBe('boolean')
  })

  it.each([
    '-bad.com',
    'no_underscore.com',
    'a..b',
    `${'a'.repeat(64)}.com`,
    'localhost',
    'example.xn--',
    'example.xn--p1ai-',
    'example.xn--p1_ai',
    `a.xn--${'a'.repeat(60)}`, // a 64-character label
    'example.1com',
  ])('rejects %j with 400', async (name) => {
    const { status: code, body } = await getJson<{ invalid_fields: Record<string, string[]> }>(
      `/dns/v2/analyze/${encodeURIComponent(name)}/delegation-status`,
      { auth: await credential(`dns-bad-${name}`) },
    )
    expect(code).toBe(400)
    expect(body.invalid_fields.name).toBeDefined()
  })
})
