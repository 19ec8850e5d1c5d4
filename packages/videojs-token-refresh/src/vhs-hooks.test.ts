import { TokenRefresher } from '@proj/token-refresh'
import {
  fakeTime,
  fakeTokenBackend,
  testRefreshOptions,
  tinyCdn,
} from '@proj/token-refresh/testing'
import videojs from 'video.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { installVhsHooks, type VhsRequest, type VhsXhr } from './vhs-hooks.ts'

// VHS's global xhr is built by the same factory as each player's `tech.vhs.xhr`: same hook
// registry, same callback wrapper, same transport (videojs.xhr → XMLHttpRequest).
const vhsXhr = (videojs as unknown as { Vhs: { xhr: VhsXhr } }).Vhs.xhr

let time: ReturnType<typeof fakeTime>
let backend: ReturnType<typeof fakeTokenBackend>
let cdn: Awaited<ReturnType<typeof tinyCdn>>
let refresher: TokenRefresher
let hooks: ReturnType<typeof installVhsHooks>

beforeEach(async () => {
  time = fakeTime()
  backend = fakeTokenBackend({ clock: time.clock })
  cdn = await tinyCdn(time.clock)
  refresher = await TokenRefresher.create(testRefreshOptions(time, cdn.issuing(backend.getToken)))
  hooks = installVhsHooks(vhsXhr, () => refresher)
})
afterEach(async () => {
  hooks.remove()
  refresher.destroy()
  await cdn.close()
})

const request = (uri: string) =>
  new Promise<{ error: unknown; request: VhsRequest; returned: VhsRequest }>((resolve) => {
    const returned = hooks.xhr({ uri, responseType: 'text' }, (error, req) =>
      resolve({ error, request: req, returned }),
    )
  })
const tokens = () => cdn.hits.map((hit) => `${hit.token} ${hit.status}`)

describe('installVhsHooks', () => {
  it('onRequest moves URLs resolved under an older token onto the pair of the 2nd and 3rd refresh', async () => {
    const segment = new URL('v1/seg_002.ts', refresher.url).href
    await time.advance(28_000)
    expect((await request(segment)).request.status).toBe(200)
    await time.advance(14_000)
    expect((await request(segment)).request.status).toBe(200)
    expect(tokens()).toEqual(['tok0003plain 200', 'tok0004plain 200'])
  })

  it('starts a background refresh when a request leaves inside the lead window', async () => {
    time.jump(15_000) // timer throttled: the token is 1 s into its lead window
    await request(refresher.url)
    expect(tokens()).toEqual(['tok0001plain 200']) // still valid: not held back
    await time.advance(0)
    expect(backend.calls).toBe(2)
    await request(refresher.url)
    expect(tokens()[1]).toBe('tok0002plain 200')
  })

  it.each([403, 410])('recovers from %i without VHS seeing the error', async (status) => {
    cdn.failOnce('seg_000.ts', status)
    const {
      error,
      request: req,
      returned,
    } = await request(new URL('v0/seg_000.ts', refresher.url).href)
    expect(error).toBeNull()
    expect(req.status).toBe(200)
    expect(returned.status).toBe(200) // VHS reads the object it got back (this.request)
    expect(tokens()).toEqual([`tok0001plain ${status}`, 'tok0002plain 200'])
  })

  it('hands the error to VHS after at most two retries when the CDN rejects every token', async () => {
    cdn.rejectAll()
    const { error, request: req } = await request(refresher.url)
    expect(error).toBeInstanceOf(Error)
    expect(req.status).toBe(403)
    expect(cdn.hits.length).toBe(3)
    // initial + one refresh per rejected token (onResponse cannot tell the last attempt)
    expect(backend.calls).toBeLessThanOrEqual(4)
  })

  it('tells the observer of every answer, and of each refusal handed to VHS', async () => {
    hooks.remove()
    const heard: string[] = []
    hooks = installVhsHooks(
      vhsXhr,
      () => refresher,
      (url, status, final) => {
        heard.push(`${new URL(url).pathname.split('/')[3]} ${status}${final ? ' final' : ''}`)
      },
    )
    cdn.failOnce('seg_000.ts', 403)
    await request(new URL('v0/seg_000.ts', refresher.url).href)
    expect(heard).toEqual(['tok0001plain 403', 'tok0002plain 200'])
    heard.length = 0
    cdn.rejectAll()
    await request(refresher.url)
    // tok0001, tok0002, tok0003: three refused in a row for the refresher, which gives up
    expect(heard).toEqual(['tok0002plain 403', 'tok0003plain 403', 'tok0003plain 403 final'])
  })

  it('does not resend a request VHS aborted while the refresh was pending', async () => {
    cdn.revoke('tok0001plain')
    backend.fail(1, 'hang')
    let called = false
    const returned = hooks.xhr({ uri: refresher.url, responseType: 'text' }, () => {
      called = true
    })
    await new Promise((resolve) => setTimeout(resolve, 50)) // 410 in, refresh hanging
    ;(returned as unknown as { abort(): void }).abort()
    await time.advance(5000) // the retry's bounded wait ends
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(called).toBe(false)
    expect(tokens()).toEqual(['tok0001plain 410'])
  })

  it('remove() unregisters both hooks', async () => {
    hooks.remove()
    const old = refresher.url
    await time.advance(14_000)
    await new Promise<void>((resolve) =>
      vhsXhr({ uri: old, responseType: 'text' }, () => resolve()),
    )
    expect(tokens()).toEqual(['tok0001plain 200'])
  })
})

describe('a retry that cannot be sent', () => {
  it('hands VHS the failure instead of never calling back', async () => {
    let calls = 0
    // an xhr whose second call (the retry) throws synchronously
    const flaky = Object.assign(
      (options: Parameters<VhsXhr>[0], callback: Parameters<VhsXhr>[1]) => {
        calls++
        if (calls > 1) throw new Error('xhr could not be opened')
        const response = { status: 410, responseURL: options.uri }
        queueMicrotask(() => callback(null, response))
        return response
      },
      {
        onRequest: () => undefined,
        onResponse: () => undefined,
        offRequest: () => undefined,
        offResponse: () => undefined,
      },
    ) as unknown as VhsXhr
    const local = installVhsHooks(flaky, () => refresher)
    const outcome = await new Promise<{ error: unknown }>((resolve) => {
      local.xhr({ uri: new URL('v0/seg_000.ts', refresher.url).href }, (error) =>
        resolve({ error }),
      )
    })
    expect(String(outcome.error)).toContain('xhr could not be opened')
    local.remove()
  })
})
