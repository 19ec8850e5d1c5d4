import Hls, {
  FetchLoader,
  type HlsConfig,
  type Loader,
  type LoaderCallbacks,
  type LoaderConfiguration,
  type LoaderContext,
  type LoaderResponse,
  LoadStats,
} from 'hls.js'
import HlsLight from 'hls.js/light'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useTokenCdn } from '../test/token-cdn.ts'
import { createTokenRefresh, type HlsTokenRefresh } from './create-token-refresh.ts'

const env = useTokenCdn()
let refresh: HlsTokenRefresh

beforeEach(async () => {
  refresh = await createTokenRefresh({ ...env.options(), Hls })
})
afterEach(() => refresh.destroy())

/** A second refresh on the test's backend and CDN, with `hlsConfig`. */
const refreshWith = (hlsConfig: Partial<HlsConfig>) =>
  createTokenRefresh({ ...env.options(), Hls, hlsConfig })

/** The loader's own retries off, as hls.js's controllers set them: `loadPolicy` decides. */
const attemptConfig = (loadPolicy: LoaderConfiguration['loadPolicy']): LoaderConfiguration => ({
  loadPolicy,
  timeout: 5000,
  maxRetry: 0,
  retryDelay: 0,
  maxRetryDelay: 0,
})

/** Loads `url` through the package's loader with the package's policy for `policy`. */
const load = (
  url: string,
  policy: 'manifestLoadPolicy' | 'fragLoadPolicy' | 'keyLoadPolicy' = 'manifestLoadPolicy',
  retryDelayMs = 10,
) => {
  const Loader = refresh.hlsConfig.loader
  if (!Loader) throw new Error('no loader')
  const loader = new Loader({ ...Hls.DefaultConfig, ...refresh.hlsConfig })
  const base = refresh.hlsConfig[policy]?.default
  if (!base?.errorRetry) throw new Error('no policy')
  const loadPolicy = {
    ...base,
    errorRetry: { ...base.errorRetry, retryDelayMs, maxRetryDelayMs: retryDelayMs },
  }
  return new Promise<LoaderResponse | { code: number }>((resolve) => {
    const callbacks: LoaderCallbacks<LoaderContext> = {
      onSuccess: (response) => resolve(response),
      onError: (error) => resolve({ code: error.code }),
      onTimeout: () => resolve({ code: -1 }),
    }
    loader.load(
      { url, responseType: 'text' } as LoaderContext,
      attemptConfig(loadPolicy),
      callbacks,
    )
  })
}
const tokens = () => env.cdn.hits.map((hit) => `${hit.token} ${hit.status}`)

describe('createTokenRefresh', () => {
  it('fetches the initial token first and hands hls.js a loader for every request type', () => {
    expect(env.backend.calls).toBe(1)
    expect(refresh.url).toContain('/tok0001plain/')
    // one loader for everything: pLoader/fLoader alone would miss AES key requests
    expect(refresh.hlsConfig.loader).toBeTypeOf('function')
    expect(refresh.hlsConfig.pLoader).toBeUndefined()
    expect(refresh.hlsConfig.fLoader).toBeUndefined()
  })

  it('keeps options the page passes in hlsConfig', async () => {
    const other = await createTokenRefresh({
      Hls,
      getToken: env.cdn.issuing(env.backend.getToken),
      refreshLeadSeconds: 6,
      refreshSpreadSeconds: 0,
      peers: null,
      timers: env.time.timers,
      visibility: null,
      hlsConfig: { maxBufferLength: 12 },
    })
    expect(other.hlsConfig.maxBufferLength).toBe(12)
    other.destroy()
  })
})

describe('the loader', () => {
  it('moves a URL resolved under an older token onto the pair of the 2nd and 3rd refresh', async () => {
    const level = new URL('v1/index.m3u8', refresh.url).href // resolved under token 1
    await env.time.advance(28_000)
    expect(refresh.refresher.refreshCount).toBe(2)
    expect((await load(level)).code).toBe(200)
    await env.time.advance(14_000)
    expect((await load(level)).code).toBe(200)
    expect(tokens()).toEqual(['tok0003plain 200', 'tok0004plain 200'])
  })

  it('rewrites on every attempt: a retry after a refresh leaves with the new pair', async () => {
    env.cdn.failOnce('v0/index.m3u8', 503)
    env.cdn.onHit(async (hit) => {
      if (hit.status === 503) await refresh.refresher.refresh()
    })
    const response = await load(new URL('v0/index.m3u8', refresh.url).href)
    expect(response.code).toBe(200)
    // hls.js retried through loadInternal(); a loader rewriting in load() would resend token 1
    expect(tokens()).toEqual(['tok0001plain 503', 'tok0002plain 200'])
  })

  it('with a fresh token the request leaves inside load(), without waiting for a promise', () => {
    const send = vi.spyOn(XMLHttpRequest.prototype, 'send')
    try {
      void load(refresh.url)
      // synchronously: no microtask has run yet
      expect(send).toHaveBeenCalledTimes(1)
    } finally {
      send.mockRestore()
    }
  })

  it('waits for the refresh when a request would leave inside the lead window (tab woke up)', async () => {
    env.time.jump(60_000) // asleep: no timer ran, token 1 expired 40 s ago
    expect((await load(refresh.url)).code).toBe(200)
    expect(tokens()).toEqual(['tok0002plain 200'])
  })

  it.each([403, 410])(
    'recovers from %i: refreshes once and retries instead of failing',
    async (status) => {
      env.cdn.failOnce('seg_000.ts', status)
      const response = await load(new URL('v0/seg_000.ts', refresh.url).href, 'fragLoadPolicy')
      expect(response.code).toBe(200)
      expect(tokens()).toEqual([`tok0001plain ${status}`, 'tok0002plain 200'])
      expect(env.backend.calls).toBe(2)
    },
  )

  it('recovers key requests too', async () => {
    env.cdn.revoke('tok0001plain')
    const response = await load(new URL('v0/key.bin', refresh.url).href, 'keyLoadPolicy')
    expect(response.code).toBe(200)
    expect(tokens()).toEqual(['tok0001plain 410', 'tok0002plain 200'])
  })

  it('gives up with the error when the CDN rejects every token, after a bounded number of fetches', async () => {
    env.cdn.rejectAll()
    const response = await load(refresh.url)
    expect(response.code).toBe(403)
    expect(env.backend.calls).toBeLessThanOrEqual(3)
    expect(env.cdn.hits.length).toBeLessThanOrEqual(3)
    // one resource refused with each of three tokens: the last refusal, past the retry budget,
    // still reaches the refresher, which gives up
    expect(new Set(env.cdn.hits.map((hit) => hit.token)).size).toBe(3)
    expect(refresh.refresher.rejected).toBe(true)
  })

  it('does not touch requests to other hosts', async () => {
    const elsewhere = refresh.url.replace('127.0.0.1', 'localhost')
    await env.time.advance(14_000)
    await load(elsewhere)
    expect(env.cdn.hits[0]?.token).toBe('tok0001plain')
  })
})

describe('with a real Hls instance', () => {
  it('loads the manifest and a level playlist on the current pair, and hls.destroy() stops the refresh', async () => {
    const hls = new Hls({ ...refresh.hlsConfig, autoStartLoad: false })
    refresh.attach(hls)
    const parsed = new Promise((resolve) => hls.once(Hls.Events.MANIFEST_PARSED, resolve))
    await env.time.advance(14_000) // refreshed before the player even loads
    hls.loadSource(new URL('master.m3u8', refresh.url.replace('tok0002plain', 'tok0001plain')).href)
    await parsed
    expect(hls.levels).toHaveLength(2)
    expect(tokens()).toEqual(['tok0002plain 200'])
    expect(env.time.pending).toBe(1)
    const destroyed = vi.fn()
    refresh.refresher.addEventListener('tokenrefreshed', destroyed)
    hls.destroy()
    expect(env.time.pending).toBe(0)
    await env.time.advance(60_000)
    expect(destroyed).not.toHaveBeenCalled()
  })
})

describe('attachNative (browsers where Hls.isSupported() is false)', () => {
  it('plays the URL natively, protected by source swaps without a worker', async () => {
    const video = document.createElement('video')
    const protection = await refresh.attachNative(video, { mode: 'swap' })
    expect(protection.mode).toBe('swap')
    expect(video.src).toBe(refresh.url)
    await env.time.advance(14_000) // refreshed while the element is paused: no swap yet…
    expect(video.src).toContain('/tok0001plain/')
    video.dispatchEvent(new Event('play')) // …until it is played again
    await env.time.advance(0)
    expect(video.src).toContain('/tok0002plain/')
    protection.destroy()
  })

  it('a forced service worker that cannot be had is an error, not a silent swap', async () => {
    const video = document.createElement('video')
    await expect(
      refresh.attachNative(video, {
        mode: 'service-worker',
        worker: Promise.reject(new Error('no sw')),
      }),
    ).rejects.toThrow('no sw')
  })
})

/** Loads `url` with a loader class of `config`, as hls.js does (fragment policy, short retries). */
const loadThrough = (
  Loader: new (config: HlsConfig) => Loader<LoaderContext>,
  config: Partial<HlsConfig>,
  url: string,
) => {
  const policy = config.fragLoadPolicy?.default
  const errorRetry = policy?.errorRetry
  if (!policy || !errorRetry) throw new Error('no policy')
  return new Promise<{ code: number }>((resolve) => {
    new Loader({ ...Hls.DefaultConfig, ...config }).load(
      { url, responseType: 'arraybuffer' } as LoaderContext,
      attemptConfig({
        ...policy,
        errorRetry: { ...errorRetry, retryDelayMs: 10, maxRetryDelayMs: 10 },
      }),
      {
        onSuccess: () => resolve({ code: 200 }),
        onError: (error) => resolve({ code: error.code }),
        onTimeout: () => resolve({ code: -1 }),
      },
    )
  })
}

describe("the loader on hls.js's loaders", () => {
  it('works on the FetchLoader too (loadInternal since hls.js 1.7): rewrites and recovers', async () => {
    const other = await refreshWith({ loader: FetchLoader as never })
    const Loader = other.hlsConfig.loader
    if (!Loader) throw new Error('no loader')
    env.cdn.failOnce('seg_000.ts', 410)
    const response = await loadThrough(
      Loader,
      other.hlsConfig,
      new URL('v0/seg_000.ts', other.url).href,
    )
    expect(response.code).toBe(200)
    expect(tokens().slice(-2)).toEqual(['tok0002plain 410', 'tok0003plain 200'])
    other.destroy()
  })

  it('an inner load that throws fails the request instead of leaving it hanging', async () => {
    class Broken extends (Hls.DefaultConfig.loader as unknown as new (
      config: object,
    ) => {
      loadInternal(): void
    }) {
      override loadInternal(): void {
        throw new Error('inner loader broke')
      }
    }
    const broken = await refreshWith({ loader: Broken as never })
    const Loader = broken.hlsConfig.loader
    if (!Loader) throw new Error('no loader')
    const error = await new Promise<{ code: number; text: string }>((resolve) => {
      new Loader({ ...Hls.DefaultConfig, ...broken.hlsConfig }).load(
        { url: broken.url, responseType: 'text' } as LoaderContext,
        attemptConfig(Hls.DefaultConfig.manifestLoadPolicy.default),
        {
          onSuccess: () => resolve({ code: 200, text: '' }),
          onError: resolve,
          onTimeout: () => resolve({ code: -1, text: '' }),
        },
      )
    })
    expect(error.text).toContain('inner loader broke')
    broken.destroy()
  })
})

/** A loader written from scratch (no hls.js base class), as P2P loaders are: fetch, no retries. */
class ScratchLoader implements Loader<LoaderContext> {
  static urls: string[] = []
  context: LoaderContext | null = null
  stats = new LoadStats()
  load(
    context: LoaderContext,
    _config: LoaderConfiguration,
    callbacks: LoaderCallbacks<LoaderContext>,
  ): void {
    this.context = context
    ScratchLoader.urls.push(context.url)
    void fetch(context.url).then(async (response) => {
      const data = await response.arrayBuffer()
      if (response.ok) callbacks.onSuccess({ url: context.url, data }, this.stats, context, null)
      else callbacks.onError({ code: response.status, text: '' }, context, null, this.stats)
    })
  }
  abort(): void {}
  destroy(): void {}
}

/** hls.js's loader with a counter: what a page's own `pLoader`/`fLoader` often is. */
const counting = (counts: string[], name: string) =>
  class Counting extends (Hls.DefaultConfig.loader as unknown as new (
    config: HlsConfig,
  ) => Loader<LoaderContext>) {
    override load(
      context: LoaderContext,
      config: LoaderConfiguration,
      callbacks: LoaderCallbacks<LoaderContext>,
    ): void {
      counts.push(name)
      super.load(context, config, callbacks)
    }
  }

describe('the Hls class comes from the page (hls.js bundled once)', () => {
  it('without options.Hls: a TypeError naming it, before any token is fetched', async () => {
    const options = env.options()
    await expect(createTokenRefresh(options as never)).rejects.toThrow(
      /createTokenRefresh: options\.Hls is required/,
    )
    await expect(createTokenRefresh({ ...options, Hls: {} as never })).rejects.toBeInstanceOf(
      TypeError,
    )
    expect(env.backend.calls).toBe(1) // the beforeEach refresh only
  })

  it("plays with hls.js/light's class: its default loader, on the current pair", async () => {
    const light = await createTokenRefresh({
      ...env.options(),
      Hls: HlsLight,
    })
    const Loader = light.hlsConfig.loader
    if (!Loader) throw new Error('no loader')
    expect(Loader.prototype).toBeInstanceOf(HlsLight.DefaultConfig.loader)
    const hls = new HlsLight({ ...light.hlsConfig, autoStartLoad: false })
    light.attach(hls)
    const parsed = new Promise((resolve) => hls.once(HlsLight.Events.MANIFEST_PARSED, resolve))
    hls.loadSource(light.url)
    await parsed
    expect(env.cdn.hits.map((hit) => hit.token)).toEqual([light.refresher.record.token])
    hls.destroy()
  })

  it('no module of the package imports hls.js at run time (type imports only)', async () => {
    const { readdir, readFile } = await import('node:fs/promises')
    const dir = import.meta.dirname
    const sources = (await readdir(dir)).filter(
      (name) => name.endsWith('.ts') && !name.includes('.test.'),
    )
    expect(sources).toContain('token-loader.ts')
    for (const name of sources) {
      const text = await readFile(`${dir}/${name}`, 'utf8')
      // `import { type A } from 'hls.js'` stays as a side-effect import: only `import type` goes
      const statements = [...text.matchAll(/^import (type )?[^']*?from '([^']+)'/gm)]
      const runtime = statements.filter(([, type, from]) => !type && from?.startsWith('hls.js'))
      expect(
        runtime.map(([statement]) => statement),
        name,
      ).toEqual([])
      expect(text, name).not.toMatch(/^import 'hls\.js|import\('hls\.js/m)
    }
  })
})

describe("the page's own pLoader and fLoader (hls.js prefers them over loader)", () => {
  it("are wrapped: a real Hls loads the manifest through the page's pLoader on the current pair", async () => {
    const counts: string[] = []
    const own = await refreshWith({ pLoader: counting(counts, 'pLoader') as never })
    expect(own.hlsConfig.pLoader).not.toBe(undefined)
    expect(own.hlsConfig.fLoader).toBeUndefined()
    const hls = new Hls({ ...own.hlsConfig, autoStartLoad: false })
    own.attach(hls)
    const first = own.url
    await env.time.advance(14_000) // refreshed: the URL the page kept carries the old pair
    const parsed = new Promise((resolve) => hls.once(Hls.Events.MANIFEST_PARSED, resolve))
    hls.loadSource(first)
    await parsed
    expect(counts).toEqual(['pLoader']) // the page's loader still does the loading…
    // …on the pair of the latest refresh, not the one in the URL
    expect(env.cdn.hits.map((hit) => `${hit.token} ${hit.status}`)).toEqual([
      `${own.refresher.record.token} 200`,
    ])
    expect(first).not.toContain(own.refresher.record.token)
    hls.destroy()
  })

  it('a from-scratch fLoader is wrapped around its load: current pair, and it waits for a due refresh', async () => {
    ScratchLoader.urls = []
    const own = await refreshWith({ fLoader: ScratchLoader as never })
    const FLoader = own.hlsConfig.fLoader
    if (!FLoader) throw new Error('no fLoader')
    const segment = new URL('v0/seg_000.ts', own.url).href // resolved under the first token
    await env.time.advance(14_000)
    expect((await loadThrough(FLoader as never, own.hlsConfig, segment)).code).toBe(200)
    env.time.jump(60_000) // asleep: the token expired meanwhile
    expect((await loadThrough(FLoader as never, own.hlsConfig, segment)).code).toBe(200)
    expect(ScratchLoader.urls).toHaveLength(2)
    const current = own.refresher.record.token
    expect(ScratchLoader.urls[1]).toContain(`/${current}/`)
    expect(env.cdn.hits.map((hit) => hit.status)).toEqual([200, 200])
    expect(env.cdn.hits[1]?.token).toBe(current)
    own.destroy()
  })
})

describe('attach(hls) after the refresh ended', () => {
  it('throws: after hls.destroy() a new Hls needs a new refresh (its token would never be renewed)', async () => {
    const first = new Hls({ ...refresh.hlsConfig, autoStartLoad: false })
    refresh.attach(first)
    first.destroy()
    const second = new Hls({ ...refresh.hlsConfig, autoStartLoad: false })
    expect(() => refresh.attach(second)).toThrow(/refresh has ended/)
    second.destroy()
  })

  it('throws after the refresher itself was destroyed (refresh.refresher.destroy())', () => {
    refresh.refresher.destroy()
    expect(refresh.refresher.destroyed).toBe(true)
    const hls = new Hls({ ...refresh.hlsConfig, autoStartLoad: false })
    expect(() => refresh.attach(hls)).toThrow(/refresh has ended/)
    hls.destroy()
  })
})

describe('attach(hls) refuses an hls whose loaders would bypass the token', () => {
  it.each([
    ['pLoader', { pLoader: Hls.DefaultConfig.loader }],
    ['fLoader', { fLoader: ScratchLoader }],
    ['loader', { loader: FetchLoader }],
  ])('%s spread after refresh.hlsConfig: a TypeError naming it', (name, mine) => {
    const hls = new Hls({ ...refresh.hlsConfig, ...(mine as Partial<HlsConfig>) })
    expect(() => refresh.attach(hls)).toThrow(
      new RegExp(`hls\\.config\\.${name} is not refresh\\.hlsConfig's`),
    )
    hls.destroy()
  })

  it('an Hls built without refresh.hlsConfig at all', () => {
    const hls = new Hls()
    expect(() => refresh.attach(hls)).toThrow(TypeError)
    hls.destroy()
  })

  it('accepts a class extending ours, and CMCD (which wraps our loader in hls.config)', () => {
    const Ours = refresh.hlsConfig.loader as unknown as new (
      config: HlsConfig,
    ) => Loader<LoaderContext>
    const extended = new Hls({ ...refresh.hlsConfig, loader: class extends Ours {} as never })
    expect(() => refresh.attach(extended)).not.toThrow()
    const cmcd = new Hls({ ...refresh.hlsConfig, cmcd: {} })
    expect(cmcd.config.pLoader).toBeDefined() // CMCD's own wrapper around ours
    expect(() => refresh.attach(cmcd)).not.toThrow()
    extended.destroy()
    cmcd.destroy()
  })
})
