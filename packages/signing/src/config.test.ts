import { describe, expect, it } from 'vitest'
import { ConfigError, parseSigningConfig, perEnvironment, readVariable } from './config.ts'

const env = {
  CLIENT_ID: '12345',
  SECRET_KEY: 'secret',
  CDN_DOMAIN: 'cdn.example.com',
  CDN_DOMAIN_IP: 'cdn-ip.example.com:8443',
}

describe('parseSigningConfig', () => {
  it('reads the four required variables, https by default, the optional cap', () => {
    expect(parseSigningConfig({ ...env, MAX_EXPIRE_SECONDS: '600' })).toEqual({
      clientId: '12345',
      secretKey: 'secret',
      cdnDomain: 'cdn.example.com',
      cdnDomainIp: 'cdn-ip.example.com:8443',
      scheme: 'https',
      maxLifetimeSeconds: 600,
    })
  })

  it.each([
    ['CLIENT_ID', 'abc'],
    ['CDN_DOMAIN', 'https://cdn.example.com'],
    ['CDN_SCHEME', 'ftp'],
    ['MAX_EXPIRE_SECONDS', '0'],
    ['SECRET_KEY', ''],
  ])('names %s when it is %j, never the value', (variable, value) => {
    const error = (() => {
      try {
        parseSigningConfig({ ...env, [variable]: value })
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).variable).toBe(variable)
    if (value) expect((error as Error).message).not.toContain(value)
  })
})

describe('readVariable', () => {
  const seed = [
    (text: string) => (/^\d+$/.test(text) ? Number(text) : undefined),
    'must be a whole number',
  ] as const

  it('parses a set variable, treats empty as unset, and names the variable when invalid or missing', () => {
    expect(readVariable({ SEED: '7' }, 'SEED', seed)).toBe(7)
    expect(readVariable({ SEED: '' }, 'SEED', seed)).toBeUndefined()
    expect(() => readVariable({ SEED: 'x' }, 'SEED', seed)).toThrow('SEED must be a whole number')
    expect(() => readVariable({}, 'SEED', seed, { required: true })).toThrow(
      'SEED is required: it must be a whole number',
    )
  })
})

describe('perEnvironment', () => {
  it('parses each environment object once', () => {
    let calls = 0
    const load = perEnvironment((bindings: { A?: string }) => ({ a: bindings.A, call: ++calls }))
    const bindings = { A: '1' }
    expect(load(bindings)).toBe(load(bindings))
    expect(load({ A: '1' }).call).toBe(2)
  })
})
