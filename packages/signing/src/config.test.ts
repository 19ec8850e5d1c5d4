import { describe, expect, it } from 'vitest'
import {
  CDN_RULES,
  ConfigError,
  cdnVariables,
  checkCdnIds,
  checkCdnList,
  parseCdnList,
  parseSigningConfig,
  perEnvironment,
  readVariable,
  SIGNING_RULES,
} from './config.ts'

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

describe('parseCdnList', () => {
  const signing = parseSigningConfig(env)
  const b = {
    CDNS: 'b',
    CDN_B_DOMAIN: 'b.test',
    CDN_B_DOMAIN_IP: 'b-ip.test',
    SECRET_KEY_B: 'secret-b',
  }
  const error = (extra: Record<string, string>) => {
    try {
      parseCdnList({ ...env, ...extra }, signing)
    } catch (caught) {
      if (caught instanceof ConfigError) return caught
      throw caught
    }
    throw new Error('no ConfigError')
  }

  it('is the primary alone when nothing is listed', () => {
    expect(parseCdnList(env, signing)).toEqual({
      primary: { id: 'primary', priority: 0 },
      cdns: [],
    })
  })

  it('reads each listed CDN, priorities defaulting to the place in the list', () => {
    const { primary, cdns } = parseCdnList(
      {
        ...env,
        ...b,
        CDN_ID: 'main',
        CDN_PRIORITY: '5',
        CDNS: ' b , eu-west ',
        CDN_EU_WEST_DOMAIN: 'eu.test:8443',
        CDN_EU_WEST_DOMAIN_IP: 'eu-ip.test',
        CDN_EU_WEST_SCHEME: 'http',
        CDN_EU_WEST_PRIORITY: '7',
        SECRET_KEY_EU_WEST: 'secret-eu',
      },
      signing,
    )
    expect(primary).toEqual({ id: 'main', priority: 5 })
    expect(cdns).toEqual([
      {
        id: 'b',
        priority: 1,
        secretKey: 'secret-b',
        cdnDomain: 'b.test',
        cdnDomainIp: 'b-ip.test',
        scheme: 'https',
      },
      {
        id: 'eu-west',
        priority: 7,
        secretKey: 'secret-eu',
        cdnDomain: 'eu.test:8443',
        cdnDomainIp: 'eu-ip.test',
        scheme: 'http',
      },
    ])
  })

  it.each([
    [{ CDN_ID: 'Main' }, 'CDN_ID', 'CDN_ID must be 1 to 32 characters'],
    [{ CDNS: 'b,B' }, 'CDNS', 'CDNS lists "B", which is not a CDN id'],
    [{ CDNS: 'b,b' }, 'CDNS', 'CDNS lists "b" twice'],
    [{ CDNS: 'primary' }, 'CDNS', 'CDNS lists "primary" twice (CDN_ID names it too)'],
    [
      { SECRET_KEY_B: '' },
      'SECRET_KEY_B',
      'SECRET_KEY_B is required: it must be set: CDN "b"\'s own secret, without spaces or line breaks at either end (wrangler secret put SECRET_KEY_B)',
    ],
    [
      { SECRET_KEY_B: 'secret' },
      'SECRET_KEY_B',
      'SECRET_KEY_B must differ from SECRET_KEY: each CDN has its own secret',
    ],
    [{ CDN_B_DOMAIN: '' }, 'CDN_B_DOMAIN', 'CDN_B_DOMAIN is required'],
    [
      { CDN_B_DOMAIN_IP: 'https://b-ip.test' },
      'CDN_B_DOMAIN_IP',
      'CDN_B_DOMAIN_IP must be a host name',
    ],
    [
      { CDN_B_DOMAIN_IP: 'CDN.example.com' },
      'CDN_B_DOMAIN_IP',
      'CDN_B_DOMAIN_IP is also CDN_DOMAIN: each CDN needs hosts of its own',
    ],
    [{ CDN_B_SCHEME: 'ftp' }, 'CDN_B_SCHEME', 'CDN_B_SCHEME must be "https" or "http"'],
    [
      { CDN_B_PRIORITY: '-1' },
      'CDN_B_PRIORITY',
      'CDN_B_PRIORITY must be a whole number from 0 to 999',
    ],
    [{ CDN_B_PRIORITY: '1000' }, 'CDN_B_PRIORITY', 'must be a whole number from 0 to 999'],
    [
      { CDN_B_PRIORITY: '0' },
      'CDN_B_PRIORITY',
      'CDN_B_PRIORITY must differ from CDN_PRIORITY (0): two CDNs cannot share a priority',
    ],
    [
      { CDN_PRIORITY: '1' },
      'CDN_B_PRIORITY',
      "CDN_B_PRIORITY is unset, so 1 (the CDN's place in CDNS), the same as CDN_PRIORITY (1)",
    ],
  ])('%j → ConfigError naming %s', (extra, variable, message) => {
    const caught = error({ ...b, ...extra })
    expect(caught.variable).toBe(variable)
    expect(caught.detail).toContain(message)
    expect(caught.message).not.toContain('secret-b')
  })

  it('names the secret that is reused, never its value', () => {
    const caught = error({
      ...b,
      CDNS: 'b,c',
      CDN_C_DOMAIN: 'c.test',
      CDN_C_DOMAIN_IP: 'c-ip.test',
      SECRET_KEY_C: 'secret-b',
    })
    expect(caught.detail).toMatch(/^SECRET_KEY_C must differ from SECRET_KEY_B/)
    expect(caught.message).not.toContain('secret-b')
  })

  it('names the variables of an id in upper case, - as _', () => {
    expect(cdnVariables('eu-west-2')).toEqual({
      cdnDomain: 'CDN_EU_WEST_2_DOMAIN',
      cdnDomainIp: 'CDN_EU_WEST_2_DOMAIN_IP',
      scheme: 'CDN_EU_WEST_2_SCHEME',
      priority: 'CDN_EU_WEST_2_PRIORITY',
      secretKey: 'SECRET_KEY_EU_WEST_2',
    })
  })
})

describe('rules in both forms: a variable is text, an object holds values', () => {
  it('reads a whole number from digits, and from a number without a detour through text', () => {
    const priority = CDN_RULES.priority
    expect(priority.text('7')).toBe(7)
    expect(priority.text('7.0')).toBeUndefined()
    expect(priority.value(7)).toBe(7)
    expect(priority.value('7')).toBeUndefined()
    expect(priority.value(1.5)).toBeUndefined()
    expect(priority.value(1000)).toBeUndefined()
    expect(SIGNING_RULES.MAX_EXPIRE_SECONDS.value(0)).toBeUndefined()
  })

  it('reads text settings from strings only', () => {
    expect(SIGNING_RULES.CLIENT_ID.value('12345')).toBe('12345')
    expect(SIGNING_RULES.CLIENT_ID.value(12345)).toBeUndefined()
    expect(SIGNING_RULES.CDN_SCHEME.value('http')).toBe('http')
  })

  it('keeps the advice for a secret apart from what is wrong', () => {
    const caught = (() => {
      try {
        readVariable({}, 'SECRET_KEY', SIGNING_RULES.SECRET_KEY, { required: true })
      } catch (error) {
        return error as ConfigError
      }
    })()
    expect(caught?.expected).toBe(
      'is required: it must be set, without spaces or line breaks at either end',
    )
    expect(caught?.advice).toBe('wrangler secret put SECRET_KEY')
    expect(caught?.detail).toBe(
      'SECRET_KEY is required: it must be set, without spaces or line breaks at either end (wrangler secret put SECRET_KEY)',
    )
  })

  it.each(['s3cret\n', ' s3cret', 's3cret\t', 's3cret\r\n'])(
    'refuses a secret with whitespace at either end (%j: every token would be refused by the CDN)',
    (text) => {
      expect(() =>
        readVariable({ SECRET_KEY: text }, 'SECRET_KEY', SIGNING_RULES.SECRET_KEY),
      ).toThrow(
        'server misconfigured: SECRET_KEY must be set, without spaces or line breaks at either end',
      )
      expect(SIGNING_RULES.SECRET_KEY.text('s3 cret')).toBe('s3 cret')
    },
  )
})

describe('checkCdnIds and checkCdnList: the clash rules in any form', () => {
  const signing = parseSigningConfig(env)
  const primary = { id: 'primary', priority: 0 }
  const b = {
    id: 'b',
    priority: 1,
    prioritySet: false,
    secretKey: 'secret-b',
    cdnDomain: 'b.test',
    cdnDomainIp: 'b-ip.test',
  }
  const fields: Record<string, string> = {
    CDNS: 'config.cdns',
    CDN_ID: 'config.primaryCdn.id',
    SECRET_KEY: 'config.signing.secretKey',
    SECRET_KEY_B: 'config.cdns[0].secretKey',
    CDN_DOMAIN: 'config.signing.cdnDomain',
    CDN_B_DOMAIN_IP: 'config.cdns[0].cdnDomainIp',
    CDN_PRIORITY: 'config.primaryCdn.priority',
    CDN_B_PRIORITY: 'config.cdns[0].priority',
  }
  const name = (variable: string) => fields[variable] ?? variable

  it('name what clashes as the form names it', () => {
    expect(() => checkCdnIds('primary', ['b', 'primary'], name)).toThrow(
      'config.cdns lists "primary" twice (config.primaryCdn.id names it too)',
    )
    expect(() => checkCdnList(signing, primary, [{ ...b, secretKey: 'secret' }], name)).toThrow(
      'config.cdns[0].secretKey must differ from config.signing.secretKey',
    )
    expect(() =>
      checkCdnList(signing, primary, [{ ...b, cdnDomainIp: 'CDN.example.com' }], name),
    ).toThrow('config.cdns[0].cdnDomainIp is also config.signing.cdnDomain')
    expect(() => checkCdnList(signing, primary, [{ ...b, priority: 0 }], name)).toThrow(
      "config.cdns[0].priority is unset, so 1 (the CDN's place in config.cdns), the same as config.primaryCdn.priority (0)",
    )
    expect(() => checkCdnList(signing, primary, [b], name)).not.toThrow()
  })
})
