import { findTokenPair } from '@proj/signing/url'
import { describe, expect, it, vi } from 'vitest'
import { fakeTime, fakeTokenBackend, testRefreshOptions, twoTinyCdns } from './testing/index.ts'
import { createTokenPeers, type TokenPeers } from './token-peers.ts'
import { TokenRefresher } from './token-refresher.ts'
import type { CdnChange } from './types.ts'

const setup = async (
  options: {
    cdns?: string[]
    probe?: (url: string, signal: AbortSignal) => Promise<boolean>
    ipBound?: boolean
    peers?: TokenPeers
    time?: ReturnType<typeof fakeTime>
  } = {},
) => {
  const { cdns = ['a', 'b'], ipBound = false, peers = null } = options
  const time = options.time ?? fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, lifetime: 60, cdns })
  const probed: string[] = []
  const probe = options.probe ?? (async () => false)
  const refresher = await TokenRefresher.create({
    getToken: backend.getToken,
    refreshLeadSeconds: 15,
    refreshSpreadSeconds: 0,
    clock: time.clock,
    timers: time.timers,
    random: () => 0.5,
    peers,
    visibility: null,
    ipBound,
    cdn: {
      cooldownMs: 20_000,
      timeoutMs: 3000,
      probe: (url, signal) => {
        probed.push(url)
        return probe(url, signal)
      },
    },
  })
  const changes: CdnChange[] = []
  refresher.addEventListener('cdnchange', (event) => changes.push(event.detail))
  return { time, backend, refresher, changes, probed }
}

const segment = (host: string, token: string, expires: number, file = 'v0/seg_001.ts') =>
  `https://${host}/videos/12345_demo/${token}/${expires}/${file}`

describe('TokenRefresher with several CDNs', () => {
  it('starts on the preferred CDN and fails over to the next with its own token', async () => {
    const { refresher, changes } = await setup()
    const { expires } = refresher.record
    expect(refresher.activeCdn).toBe('a')
    expect(refresher.cdnTimeoutMs).toBe(3000)
    expect(refresher.url).toBe(segment('a.cdn.test', 'tok0001aplain', expires, 'master.m3u8'))
    const onA = refresher.rewrite(segment('a.cdn.test', 'old000plain', 1767225600))
    expect(onA).toBe(segment('a.cdn.test', 'tok0001aplain', expires))
    expect(refresher.cdnFailed(onA, 'server-error')).toBe(true)
    expect(refresher.activeCdn).toBe('b')
    expect(changes).toEqual([{ from: 'a', to: 'b', reason: 'server-error' }])
    expect(refresher.rewrite(onA)).toBe(segment('b.cdn.test', 'tok0001bplain', expires))
    expect(refresher.url).toBe(segment('b.cdn.test', 'tok0001bplain', expires, 'master.m3u8'))
    expect(refresher.token).toBe('tok0001bplain') // what the video's requests carry now
  })

  it('never puts a token of one CDN on another CDN host', async () => {
    for (const ipBound of [false, true]) {
      const { refresher } = await setup({ cdns: ['a', 'b', 'c'], ipBound })
      const hosts = ['a', 'b', 'c'].flatMap((id) => [`${id}.cdn.test`, `${id}.cdn-ip.test`])
      const tokens = ['tok0001aplain', 'tok0001abound', 'tok0001bplain', 'tok0001bbound']
      const files = ['master.m3u8', 'v0/index.m3u8', 'v1/seg_042.ts', 'key.bin', 'a/b/c.mp4']
      const check = () => {
        const active = refresher.activeCdn
        const host = `${active}.${ipBound ? 'cdn-ip' : 'cdn'}.test`
        const token = `tok0001${active}${ipBound ? 'bound' : 'plain'}`
        expect(refresher.token).toBe(token)
        for (const from of hosts)
          for (const old of [...tokens, 'tok0001cplain'])
            for (const file of files) {
              const url = new URL(refresher.rewrite(segment(from, old, 1767225600, file)))
              expect(url.host).toBe(host)
              expect(findTokenPair(url.href)?.token).toBe(token)
              expect(url.pathname.endsWith(`/${file}`)).toBe(true)
            }
      }
      check()
      refresher.cdnFailed(segment('a.cdn.test', 'old000plain', 1767225600), 'timeout')
      check()
      refresher.cdnFailed(segment('b.cdn-ip.test', 'old000plain', 1767225600), 'refused')
      expect(refresher.activeCdn).toBe('c')
      check()
      refresher.destroy()
    }
  })

  it('leaves URLs of other hosts and videos alone', async () => {
    const { refresher } = await setup()
    const other = 'https://elsewhere.test/videos/12345_demo/tok0001aplain/1767225600/seg.ts'
    const otherVideo = segment('a.cdn.test', 'tok0001aplain', 1767225600).replace('demo', 'x')
    expect(refresher.rewrite(other)).toBe(other)
    expect(refresher.rewrite(otherVideo)).toBe(otherVideo)
    expect(refresher.cdnFailed(other, 'timeout')).toBe(false)
    expect(refresher.cdnFailureOf(other, 503)).toBeUndefined()
    expect(refresher.activeCdn).toBe('a')
  })

  it('classifies by the URL token freshness on the server clock', async () => {
    const { refresher, time } = await setup()
    const fresh = refresher.rewrite(segment('a.cdn.test', 'old000plain', 1767225600))
    const expired = segment('a.cdn.test', 'old000plain', Math.floor(time.clock.now() / 1000) - 1)
    expect(refresher.cdnFailureOf(fresh, 403)).toBe('refused')
    expect(refresher.cdnFailureOf(fresh, 410)).toBe('refused')
    expect(refresher.cdnFailureOf(expired, 403)).toBeUndefined()
    expect(refresher.cdnFailureOf(fresh, 502)).toBe('server-error')
    expect(refresher.cdnFailureOf(fresh, 0)).toBe('network')
    expect(refresher.cdnFailureOf(fresh, 404)).toBeUndefined()
    expect(refresher.cdnFailureOf(fresh, 200)).toBeUndefined()
  })

  it('stays on the CDN it moved to while the preferred one fails probes', async () => {
    const { refresher, time, changes, probed } = await setup()
    const url = refresher.rewrite(segment('a.cdn.test', 'old000plain', 1767225600))
    refresher.cdnFailed(url, 'timeout')
    // requests sent to a before the switch keep failing: no switch back and forth
    for (let i = 0; i < 5; i++) expect(refresher.cdnFailed(url, 'timeout')).toBe(true)
    refresher.rewrite(url)
    await time.advance(19_000)
    expect(probed).toEqual([])
    await time.advance(1000)
    // the probe asks the preferred CDN, on its host and with its token, for the last URL
    expect(probed).toEqual([segment('a.cdn.test', 'tok0001aplain', refresher.record.expires)])
    expect(refresher.activeCdn).toBe('b')
    await time.advance(19_000)
    expect(probed).toHaveLength(1)
    await time.advance(1000)
    expect(probed).toHaveLength(2)
    expect(refresher.activeCdn).toBe('b')
    expect(changes).toHaveLength(1)
  })

  it('returns to the preferred CDN once a probe succeeds: two switches for one outage', async () => {
    let down = true
    const { refresher, time, changes } = await setup({ probe: async () => !down })
    const url = refresher.rewrite(segment('a.cdn.test', 'old000plain', 1767225600))
    refresher.cdnFailed(url, 'refused')
    for (let second = 0; second < 60; second++) {
      // a player's steady traffic, with late failures of requests still on a
      refresher.rewrite(url)
      refresher.cdnFailed(url, 'refused')
      await time.advance(1000)
    }
    down = false
    await time.advance(20_000)
    expect(refresher.activeCdn).toBe('a')
    expect(changes).toEqual([
      { from: 'a', to: 'b', reason: 'refused' },
      { from: 'b', to: 'a', reason: 'recovered' },
    ])
    expect(refresher.rewrite(url)).toContain('a.cdn.test/videos/12345_demo/tok')
  })

  it('counts a probe that does not answer within the timeout as failed', async () => {
    const { refresher, time, probed } = await setup({ probe: () => new Promise(() => undefined) })
    refresher.cdnFailed(refresher.url, 'timeout')
    await time.advance(20_000 + 3000)
    expect(probed).toHaveLength(1)
    expect(refresher.activeCdn).toBe('b')
    await time.advance(20_000)
    expect(probed).toHaveLength(2)
  })

  it('keeps the active CDN across refreshes during an outage', async () => {
    const { refresher, time, backend } = await setup()
    refresher.cdnFailed(refresher.url, 'server-error')
    await time.advance(60_000)
    expect(backend.calls).toBeGreaterThan(1)
    expect(refresher.activeCdn).toBe('b')
    const { expires } = refresher.record
    const n = String(backend.calls).padStart(4, '0')
    expect(refresher.url).toBe(segment('b.cdn.test', `tok${n}bplain`, expires, 'master.m3u8'))
  })

  it('lets each refresher of shared records keep its own active CDN', async () => {
    const time = fakeTime()
    const peers = createTokenPeers()
    const first = await setup({ time, peers })
    const second = await setup({ time, peers })
    first.refresher.cdnFailed(first.refresher.url, 'timeout')
    time.jump(1000)
    await first.refresher.refresh()
    expect(second.refresher.record).toBe(first.refresher.record)
    expect(first.refresher.activeCdn).toBe('b')
    expect(second.refresher.activeCdn).toBe('a')
    expect(second.refresher.url).toContain('//a.cdn.test/')
  })

  it('moves on only when another CDN is not cooling down', async () => {
    const { refresher } = await setup()
    const onA = refresher.url
    refresher.cdnFailed(onA, 'timeout')
    const onB = refresher.url
    expect(refresher.cdnFailed(onB, 'timeout')).toBe(false)
    expect(refresher.activeCdn).toBe('b')
  })

  it("refreshes when a CDN other than the page's active one refuses its own current token", async () => {
    // the service worker lane: the worker moved to b, the page's refresher never heard of it
    const { refresher, time, backend } = await setup()
    const onB = segment('b.cdn.test', 'tok0001bplain', refresher.record.expires)
    expect(refresher.activeCdn).toBe('a')
    time.jump(1000)
    expect(refresher.recover(onB)).toBe(true)
    await time.advance(0)
    expect(backend.calls).toBe(2)
    // an older pair of b just needs the current one: no refresh
    expect(refresher.recover(segment('b.cdn.test', 'tok0001bplain', 1767225600))).toBe(true)
    await time.advance(0)
    expect(backend.calls).toBe(2)
  })

  it('ends a running probe, its timer and its request, on destroy', async () => {
    let signal: AbortSignal | undefined
    const { refresher, time } = await setup({
      probe: (_url, given) => {
        signal = given
        return new Promise(() => undefined)
      },
    })
    refresher.cdnFailed(refresher.url, 'timeout')
    await time.advance(20_000)
    expect(signal?.aborted).toBe(false)
    refresher.destroy()
    expect(signal?.aborted).toBe(true)
    expect(time.pending).toBe(0)
  })

  it('aborts the default HEAD probe on destroy', async () => {
    const time = fakeTime()
    const cdns = await twoTinyCdns(time)
    const fetches = vi.spyOn(globalThis, 'fetch')
    try {
      const refresher = await TokenRefresher.create(testRefreshOptions(time, cdns.getToken))
      cdns.hang(cdns.a)
      refresher.cdnFailed(refresher.url, 'timeout')
      await time.advance(20_000)
      const [url, init] = fetches.mock.calls.at(-1) ?? []
      expect([String(url).includes(cdns.a.host), init?.method]).toEqual([true, 'HEAD'])
      refresher.destroy()
      expect(init?.signal?.aborted).toBe(true)
    } finally {
      fetches.mockRestore()
      await cdns.close()
    }
  })

  it('stops probing once destroyed', async () => {
    const { refresher, time, probed } = await setup()
    refresher.cdnFailed(refresher.url, 'timeout')
    refresher.destroy()
    await time.advance(60_000)
    expect(probed).toEqual([])
    expect(time.pending).toBe(0)
  })
})

describe('TokenRefresher with one CDN', () => {
  it('has no failover: no active CDN, no timeout, no classification, no switch', async () => {
    const { refresher, changes } = await setup({ cdns: [] })
    const url = refresher.url
    expect(url).toMatch(/^https:\/\/cdn\.test\/videos\/12345_demo\/tok0001plain\//)
    expect(refresher.activeCdn).toBeUndefined()
    expect(refresher.cdnTimeoutMs).toBeUndefined()
    for (const status of [0, 403, 410, 500, 503])
      expect(refresher.cdnFailureOf(url, status)).toBe(undefined)
    expect(refresher.cdnFailed(url, 'timeout')).toBe(false)
    expect(refresher.rewrite(url)).toBe(url)
    expect(changes).toEqual([])
  })

  it('treats a record whose cdns lists a single CDN as one CDN', async () => {
    const { refresher } = await setup({ cdns: ['a'] })
    expect(refresher.activeCdn).toBeUndefined()
    expect(refresher.cdnFailed(refresher.url, 'timeout')).toBe(false)
  })
})
