import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTokenApp } from '@proj/token-backend'
import { describe, expect, it } from 'vitest'

// Deployed as shipped (wrangler.jsonc unedited, the secret put), the Worker signs for nobody; the
// local stack's values (.dev.vars.example, what `npm start` copies) still sign.
const root = join(import.meta.dirname, '..')
const shipped = JSON.parse(
  readFileSync(join(root, 'wrangler.jsonc'), 'utf8').replace(/^\s*\/\/.*$/gm, ''),
) as { vars: Record<string, string> }
const devVars = Object.fromEntries(
  readFileSync(join(root, '.dev.vars.example'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
)

describe('closed by default', () => {
  it('wrangler.jsonc chooses no AUTH_MODE "none": that is the local .dev.vars’ explicit choice', () => {
    expect(shipped.vars.AUTH_MODE).toBeUndefined()
    expect(devVars.AUTH_MODE).toBe('none')
  })

  it('the shipped vars answer 500 naming CDN_DOMAIN, and sign nothing', async () => {
    const app = createTokenApp({ audit: () => undefined })
    const env = { ...shipped.vars, SECRET_KEY: 'put-with-wrangler-secret' }
    const res = await app.request('/token?video=demo', {}, env)
    expect(res.status).toBe(500)
    const body = (await res.json()) as Record<string, unknown>
    expect(Object.keys(body)).toEqual(['error'])
    expect(body.error).toContain('CDN_DOMAIN is still the placeholder cdn.example.com')
    expect((await app.request('/session?video=demo', {}, env)).status).toBe(500)
  })

  it('with real CDN hosts but no AUTH_MODE, the shipped vars still sign nothing: 500 naming the choices', async () => {
    const app = createTokenApp({ audit: () => undefined })
    const env = {
      ...shipped.vars,
      CDN_DOMAIN: 'cdn.mysite.net',
      CDN_DOMAIN_IP: 'cdn-ip.mysite.net',
      SECRET_KEY: 'put-with-wrangler-secret',
    }
    const res = await app.request('/token?video=demo', {}, env)
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({
      error:
        'server misconfigured: AUTH_MODE is required: it must be "jwt" (viewers need a JWT: set JWT_SECRET, JWT_JWKS_URL or JWT_JWKS) or "none" (anyone may get tokens)',
    })
    expect((await app.request('/session?video=demo', {}, env)).status).toBe(500)
    // naming the choice is enough
    const chosen = await app.request('/token?video=demo', {}, { ...env, AUTH_MODE: 'none' })
    expect(chosen.status).toBe(200)
  })

  it('the local values of `npm start` sign', async () => {
    const app = createTokenApp({ audit: () => undefined })
    const res = await app.request('/token?video=demo', {}, { ...shipped.vars, ...devVars })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      url: expect.stringContaining('http://127.0.0.1:8080/'),
    })
  })

  it.each([
    {
      refusal: 'on the placeholder, naming what to set',
      hosts: { CDN_DOMAIN: 'cdn.example.com', CDN_DOMAIN_IP: 'cdn-ip.example.com' },
      names: 'CDN_DOMAIN is still the placeholder cdn.example.com',
    },
    {
      refusal: 'without AUTH_MODE, naming it',
      hosts: { CDN_DOMAIN: 'cdn.mysite.net', CDN_DOMAIN_IP: 'cdn-ip.mysite.net' },
      names: 'AUTH_MODE is required: it must be "jwt"',
    },
  ])('the Node entry refuses to start $refusal', async ({ hosts, names }) => {
    const child = spawn(process.execPath, [join(root, 'src', 'node.ts')], {
      env: {
        PATH: process.env.PATH ?? '',
        CLIENT_ID: '12345',
        SECRET_KEY: 'node-secret',
        ...hosts,
        PORT: '0',
      },
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const [code] = await once(child, 'exit')
    expect(code).not.toBe(0)
    expect(output).toContain(names)
    expect(output).not.toContain('listening')
    expect(output).not.toContain('node-secret')
  })
})
