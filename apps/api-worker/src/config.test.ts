import { env as testEnv } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { createApiApp } from './app.ts'
import { parseApiConfig } from './config.ts'
import type { ApiBindings } from './env.ts'

const env = testEnv as unknown as ApiBindings

describe('parseApiConfig', () => {
  it('reads the test bindings', () => {
    expect(parseApiConfig(env)).toMatchObject({
      admin: true,
      seed: 42,
      taskStepMs: 60,
      dnsRateLimit: { limit: 3, windowMs: 2000 },
      stateName: 'emulator',
    })
    expect(parseApiConfig(env).adminToken).toBeUndefined()
  })

  it('leaves the emulator controls off when EMULATOR_ADMIN is unset, and reads a token', () => {
    const { EMULATOR_ADMIN: _on, ...unset } = env
    expect(parseApiConfig(unset).admin).toBe(false)
    const token = 'an-admin-token-of-24-chars'
    expect(parseApiConfig({ ...env, EMULATOR_ADMIN_TOKEN: token }).adminToken).toBe(token)
  })

  it.each([
    ['DNS_RATE_LIMIT', '10 per 10s'],
    ['DNS_RATE_LIMIT', '0/10s'],
    ['SEED', 'forty-two'],
    ['TASK_STEP_MS', '-5'],
    ['EMULATOR_ADMIN', 'ture'],
    ['EMULATOR_ADMIN_TOKEN', 'too-short'],
    ['EMULATOR_ADMIN_TOKEN', 'spaces are not allowed here'],
  ])('a bad %s (%j) fails loudly, naming it, instead of falling back', async (variable, value) => {
    expect(() => parseApiConfig({ ...env, [variable]: value })).toThrow(variable)
    const res = await createApiApp().request(
      '/iam/clients/me',
      { headers: { authorization: 'APIKey test-client-key' } },
      {
        ...env,
        [variable]: value,
      },
    )
    expect(res.status).toBe(500)
    expect(await res.text()).toContain(variable)
  })
})
