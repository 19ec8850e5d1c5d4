import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { testEnv } from '../test/helpers.ts'
import { checkMountedApp } from '../test/mounted.ts'
import { createTokenApp } from './app.ts'

// In workerd: the app mounted in a parent Hono app, configured by the Worker's variables (c.env)
// and keeping sessions in the SESSION_REGISTRY Durable Object of test/wrangler.test.jsonc.
describe('mounted in a parent app under /video (workerd, configuration from c.env)', () => {
  it('serves every route under the prefix: tokens, sessions, their files, revocation, {error}', async () => {
    const parent = new Hono().get('/health', (c) => c.text('ok')).route('/video', createTokenApp())
    const env = testEnv()
    // the CDN of vitest.config.ts (cdn.test) answers the leaf's redirect
    await checkMountedApp((path, init) => parent.request(path, init, env), fetch)
  })

  it('under a prefix with a parameter, session URLs carry the path as requested', async () => {
    const parent = new Hono().route('/:tenant/video', createTokenApp())
    const res = await parent.request(
      'https://site.test/acme/video/session?video=demo',
      {},
      testEnv(),
    )
    const { session_url: url } = await res.json<{ session_url: string }>()
    expect(url.startsWith('https://site.test/acme/video/s/demo/')).toBe(true)
    const master = await parent.request(url, {}, testEnv())
    expect(master.status).toBe(200)
  })

  it("at the root of a parent, the parent's later routes and 404s stay the parent's", async () => {
    const parent = new Hono().route('/', createTokenApp()).get('/about', (c) => c.text('about'))
    expect(await (await parent.request('/about', {}, testEnv())).text()).toBe('about')
    const missing = await parent.request('/nowhere', {}, testEnv())
    expect(missing.status).toBe(404)
    expect(await missing.text()).toBe('404 Not Found')
    expect((await parent.request('/token?video=demo', {}, testEnv())).status).toBe(200)
  })

  it("parent.mount('/tok', app.fetch) hides its path: SESSION_BASE_URL names the mount point", async () => {
    const tokens = createTokenApp()
    // without it the app cannot know where it is: session URLs would miss /tok (documented)
    for (const base of ['/tok', 'https://site.test/tok']) {
      const env = testEnv({ SESSION_BASE_URL: base })
      const parent = new Hono().get('/health', (c) => c.text('ok')).mount('/tok', tokens.fetch)
      await checkMountedApp((path, init) => parent.request(path, init, env), fetch, {
        at: '/tok',
        seen: '',
      })
    }
  })

  it('a SESSION_BASE_URL that already names the route prefix is not doubled', async () => {
    const parent = new Hono().route('/video', createTokenApp())
    const env = testEnv({ SESSION_BASE_URL: 'https://site.test/video/' })
    const res = await parent.request('https://site.test/video/session?video=demo', {}, env)
    const { session_url: url } = await res.json<{ session_url: string }>()
    expect(url.startsWith('https://site.test/video/s/demo/')).toBe(true)
    expect((await parent.request(url, {}, env)).status).toBe(200)
  })

  it('SESSION_BASE_URL is the public origin: the prefix follows it', async () => {
    const parent = new Hono().route('/video', createTokenApp())
    const env = testEnv({ SESSION_BASE_URL: 'https://public.test/edge' })
    const res = await parent.request('https://internal.test/video/session?video=demo', {}, env)
    const { session_url: url } = await res.json<{ session_url: string }>()
    expect(url.startsWith('https://public.test/edge/video/s/demo/')).toBe(true)
  })
})
