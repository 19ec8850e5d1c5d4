import type { CdnChange } from '@proj/token-refresh'
import {
  fakeTime,
  fakeTokenBackend,
  type TwoCdns,
  testRefreshOptions,
  twoTinyCdns,
} from '@proj/token-refresh/testing'
import Hls, {
  FetchLoader,
  type HlsConfig,
  type LoaderCallbacks,
  type LoaderConfiguration,
  type LoaderContext,
  type LoaderStats,
} from 'hls.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTokenRefresh, type HlsTokenRefresh } from './create-token-refresh.ts'

const TIMEOUT_MS = 300
let time: ReturnType<typeof fakeTime>
let cdns: TwoCdns
let refresh: HlsTokenRefresh
let changes: CdnChange[]
let probed: string[]

const start = async (hlsConfig: Partial<HlsConfig> = {}) => {
  refresh = await createTokenRefresh({
    ...testRefreshOptions(time, cdns.getToken),
    Hls,
    hlsConfig,
    cdn: {
      timeoutMs: TIMEOUT_MS,
      cooldownMs: 20_000,
      probe: async (url) => {
        probed.push(url)
        return false
      },
    },
  })
  refresh.refresher.addEventListener('cdnchange', (event) => changes.push(event.detail))
}

beforeEach(async () => {
  time = fakeTime()
  cdns = await twoTinyCdns(time)
  changes = []
  probed = []
  await start()
})
afterEach(async () => {
  refresh.destroy()
  await cdns.close()
})

type Outcome = { code: number; url: string; ms: number }

/**
 * One request for `file` (relative to the master playlist) through the package's loader, as
 * hls.js's controllers send it: `policy`'s load policy, with a long retry delay so that a retry
 * by hls.js (instead of the failover) would show in the time taken.
 */
const load = (
  file: string,
  policy: 'manifestLoadPolicy' | 'fragLoadPolicy' = 'fragLoadPolicy',
  errorRetry = true,
) => {
  const Loader = refresh.hlsConfig.loader
  const base = refresh.hlsConfig[policy]?.default
  if (!Loader || !base?.errorRetry) throw new Error('no loader or policy')
  const loadPolicy = {
    ...base,
    errorRetry: errorRetry
      ? { ...base.errorRetry, retryDelayMs: 5000, maxRetryDelayMs: 5000 }
      : null,
  }
  const config: LoaderConfiguration = {
    loadPolicy,
    timeout: 10_000,
    maxRetry: 0,
    retryDelay: 0,
    maxRetryDelay: 0,
  }
  const began = performance.now()
  const context = { url: new URL(file, refresh.url).href, responseType: 'text' } as LoaderContext
  return new Promise<Outcome>((resolve) => {
    const done = (code: number) => () =>
      resolve({ code, url: context.url, ms: performance.now() - began })
    const callbacks: LoaderCallbacks<LoaderContext> = {
      onSuccess: done(200),
      onError: (error) => done(error.code)(),
      onTimeout: done(-1),
    }
    new Loader({ ...Hls.DefaultConfig, ...refresh.hlsConfig }).load(context, config, callbacks)
  })
}

describe('the loader with two CDNs', () => {
  it.each([
    ['503', 503],
    ['403 for a valid token', 403],
    ['410 for a valid token', 410],
  ] as const)('moves a fragment answered %s by CDN a to CDN b at once', async (_, status) => {
    cdns.fault(cdns.a, status)
    const outcome = await load('v0/seg_000.ts')
    expect(outcome.code).toBe(200)
    expect(outcome.url).toContain(`//${cdns.b.host}/videos/12345_demo/tok0001bplain/`)
    expect(outcome.ms).toBeLessThan(1000)
    expect(cdns.hits()).toEqual([`a tok0001aplain ${status}`, 'b tok0001bplain 200'])
    expect(changes).toEqual([
      { from: 'a', to: 'b', reason: status === 503 ? 'server-error' : 'refused' },
    ])
    // a token refused while fresh is the CDN's failure: no refresh was asked for
    expect(cdns.backend.calls).toBe(1)
  })

  it('moves a playlist past the loader retry of hls.js, without its delay', async () => {
    cdns.fault(cdns.a, 502)
    const outcome = await load('v1/index.m3u8', 'manifestLoadPolicy')
    expect(outcome.code).toBe(200)
    expect(outcome.ms).toBeLessThan(1000)
    expect(cdns.hits()).toEqual(['a tok0001aplain 502', 'b tok0001bplain 200'])
  })

  // happy-dom's XMLHttpRequest enters LOADING as soon as it is sent, which hls.js's XhrLoader
  // takes for the first byte: a hang is tested with FetchLoader here (XhrLoader in Chromium, e2e)
  it('gives up an attempt that gets no first byte within cdnTimeoutMs and sends it to b', async () => {
    refresh.destroy()
    await start({ loader: FetchLoader })
    expect(refresh.refresher.cdnTimeoutMs).toBe(TIMEOUT_MS)
    cdns.fault(cdns.a, 'hang')
    const hung = await load('v0/seg_001.ts')
    expect(hung.code).toBe(200)
    expect(hung.url).toContain(`//${cdns.b.host}/videos/12345_demo/tok0002bplain/`)
    expect(hung.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5)
    expect(hung.ms).toBeLessThan(TIMEOUT_MS + 1500)
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'timeout' }])
    expect(await load('v0/seg_002.ts')).toMatchObject({ code: 200 })
    // the refresher of this test is the second: its records are the backend's second
    expect(cdns.hits()).toEqual([
      'a tok0002aplain 200',
      'b tok0002bplain 200',
      'b tok0002bplain 200',
    ])
  })

  it('stays on b: later requests go there first, late failures of a move nothing', async () => {
    cdns.fault(cdns.a, 503)
    await load('v0/seg_000.ts')
    for (const file of ['v0/seg_001.ts', 'v0/seg_002.ts', 'key.bin'])
      expect((await load(file)).code).toBe(200)
    expect(cdns.hits().filter((hit) => hit.startsWith('a'))).toHaveLength(1)
    expect(refresh.refresher.activeCdn).toBe('b')
    expect(changes).toHaveLength(1)
    expect(refresh.url).toContain(cdns.b.host)
  })

  it('leaves the failure to hls.js when b fails too (no loop between the CDNs)', async () => {
    cdns.fault(cdns.a, 503)
    cdns.fault(cdns.b, 503)
    const outcome = await load('v0/seg_000.ts', 'fragLoadPolicy', false)
    expect(outcome.code).toBe(503)
    expect(cdns.hits()).toEqual(['a tok0001aplain 503', 'b tok0001bplain 503'])
  })

  it('leaves a 404 to hls.js: the content is missing, not the CDN failing', async () => {
    cdns.fault(cdns.a, 404)
    const gone = await load('v0/seg_000.ts', 'fragLoadPolicy', false)
    expect(gone.code).toBe(404)
    expect(cdns.hits()).toEqual(['a tok0001aplain 404'])
    expect(refresh.refresher.activeCdn).toBe('a')
  })

  it('probes a after the cooldown with its own token, and stays on b while it fails', async () => {
    cdns.fault(cdns.a, 503)
    await load('v0/seg_000.ts')
    await time.advance(20_000)
    expect(probed).toHaveLength(1)
    expect(probed[0]).toMatch(new RegExp(`//${cdns.a.host}/videos/12345_demo/tok\\d+aplain/`))
    expect(refresh.refresher.activeCdn).toBe('b')
  })
})

describe("the loader with two CDNs, when the failure is not the CDN's or not the first", () => {
  it.each([
    [
      'hls.js loader whose send throws',
      class extends FetchLoader {
        override loadInternal(): void {
          throw new Error('xhrSetup failed')
        }
      },
    ],
    [
      'page loader whose load throws',
      class {
        context = null
        stats = new FetchLoader(Hls.DefaultConfig).stats
        load() {
          throw new Error('no peer')
        }
        abort() {}
        destroy() {}
      },
    ],
  ])('reports a local error (%s) to hls.js without leaving the CDN', async (_, Local) => {
    refresh.destroy()
    await start({ loader: Local as unknown as HlsConfig['loader'] })
    const outcome = await load('v0/seg_000.ts', 'fragLoadPolicy', false)
    expect(outcome.code).toBe(0)
    expect(changes).toEqual([])
    expect(refresh.refresher.activeCdn).toBe('a')
  })

  it('moves an attempt hls.js times out first (maxTimeToFirstByteMs < cdnTimeoutMs) to b', async () => {
    refresh.destroy()
    const fragLoadPolicy = Hls.DefaultConfig.fragLoadPolicy
    const short = { ...fragLoadPolicy.default, maxTimeToFirstByteMs: TIMEOUT_MS / 3 }
    await start({ loader: FetchLoader, fragLoadPolicy: { default: short } })
    cdns.hang(cdns.a)
    const outcome = await load('v0/seg_000.ts')
    expect(outcome.code).toBe(200)
    expect(outcome.url).toContain(`//${cdns.b.host}/`)
    expect(outcome.ms).toBeLessThan(TIMEOUT_MS)
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'timeout' }])
  })

  it('lets no late answer of an attempt given up reach hls.js (page loader)', async () => {
    // a page's loader that answers slowly from a and cannot be aborted
    class Slow {
      context: LoaderContext | null = null
      stats: LoaderStats = new FetchLoader(Hls.DefaultConfig).stats
      load(
        context: LoaderContext,
        _: LoaderConfiguration,
        callbacks: LoaderCallbacks<LoaderContext>,
      ) {
        const stats = new FetchLoader(Hls.DefaultConfig).stats
        this.stats = stats
        const ms = context.url.includes(cdns.a.host) ? TIMEOUT_MS * 2 : 10
        setTimeout(() => {
          stats.loading.first = performance.now()
          callbacks.onSuccess({ url: context.url, data: 'x' }, stats, context, null)
        }, ms)
      }
      abort() {}
      destroy() {}
    }
    refresh.destroy()
    await start({ loader: Slow as unknown as HlsConfig['loader'] })
    const Loader = refresh.hlsConfig.loader
    if (!Loader) throw new Error('no loader')
    const policy = Hls.DefaultConfig.fragLoadPolicy.default
    const config = { loadPolicy: policy, timeout: 0, maxRetry: 0, retryDelay: 0, maxRetryDelay: 0 }
    const answered: string[] = []
    const context = { url: new URL('v0/seg_000.ts', refresh.url).href, responseType: 'text' }
    new Loader({ ...Hls.DefaultConfig, ...refresh.hlsConfig }).load(
      context as LoaderContext,
      config,
      {
        onSuccess: (response) => answered.push(new URL(response.url).host),
        onError: () => answered.push('error'),
        onTimeout: () => answered.push('timeout'),
      },
    )
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 3))
    expect(answered).toEqual([cdns.b.host])
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'timeout' }])
  })
})

describe('the loader with one CDN', () => {
  it('has no first-byte timer and no failover', async () => {
    const one = await createTokenRefresh({
      ...testRefreshOptions(time, cdns.a.issuing(fakeTokenBackend({ clock: time.clock }).getToken)),
      Hls,
    })
    expect(one.refresher.cdnTimeoutMs).toBeUndefined()
    expect(one.refresher.activeCdn).toBeUndefined()
    one.destroy()
  })
})
