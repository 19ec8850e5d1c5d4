import { fakeTime } from '@proj/token-refresh/testing'
import { beforeEach, describe, expect, it } from 'vitest'
import { fakeWorld, mediaRequest, player } from '../../test/harness.ts'
import { memoryStore } from './record-store.ts'

let time: ReturnType<typeof fakeTime>
let world: ReturnType<typeof fakeWorld>

beforeEach(() => {
  time = fakeTime()
  world = fakeWorld(time)
})

/** What the worker answers for `url`, and the URLs it really sent. */
const play = player(() => world)

describe('RequestRewriter', () => {
  it('moves a request resolved under an older token onto the current pair, keeping Range', async () => {
    const refresher = await world.page('tab-1').open('12345_demo')
    const first = refresher.url
    await time.advance(14_000) // refreshed once: token 2
    const result = await play(new URL('v0/seg_003.ts', first).href)
    expect(result.status).toBe(200)
    expect(result.sent).toEqual([
      `/videos/12345_demo/tok0002plain/${refresher.record.expires}/v0/seg_003.ts 200`,
    ])
    const headers = new Headers(result.init?.headers)
    expect(headers.get('range')).toBe('bytes=0-')
    // opaque answers hide 403/410: sent in cors mode, without cookies (ACAO: * forbids them)
    expect(result.init).toMatchObject({ mode: 'cors', credentials: 'same-origin', method: 'GET' })
  })

  it('leaves alone what is not a protected video', async () => {
    await world.page('tab-1').open('12345_demo')
    expect(
      world.worker.handle(mediaRequest('https://cdn.test/videos/12345_demo/master.m3u8'), 'tab-1'),
    ).toBeUndefined()
    expect(
      world.worker.handle(
        new Request('https://cdn.test/videos/12345_demo/tok0001plain/1795348800/x', {
          method: 'POST',
        }),
        'tab-1',
      ),
    ).toBeUndefined()
    // another video on the same host: passed through unchanged
    const other = await play('https://cdn.test/videos/12345_other/abcdefgh/1795348800/master.m3u8')
    expect(other.sent).toEqual(['/videos/12345_other/abcdefgh/1795348800/master.m3u8 403'])
    expect(other.init).toBeUndefined()
  })

  it('after a restart reads the persisted record before any page answers', async () => {
    const page = world.page('tab-1')
    const refresher = await page.open('12345_demo')
    await time.advance(14_000)
    page.frozen = true // the page cannot answer: only the stored copy can help
    world.restart()
    const result = await play(
      new URL('v1/index.m3u8', refresher.url.replace('tok0002', 'tok0001')).href,
    )
    expect(result.status).toBe(200)
    expect(result.sent[0]).toContain('/tok0002plain/')
  })

  it('a restarted worker that hears from one page first keeps the stored records of the others', async () => {
    await world.page('tab-1').open('12345_demo')
    const tab2 = world.page('tab-2')
    const other = await tab2.open('12345_other')
    const first = other.url
    await time.advance(14_000) // both refreshed: token 2 of each, stored
    world.restart() // stopped while idle
    await time.advance(1000)
    world.pages.get('tab-1')?.connection.destroy() // tab-1's forget wakes the worker: it saves
    world.restart()
    tab2.frozen = true // only the stored copy can tell the worker about 12345_other
    const result = await play(new URL('v0/seg_001.ts', first).href, 'tab-2')
    expect(result.sent).toEqual([
      `/videos/12345_other/${other.record.token}/${other.record.expires}/v0/seg_001.ts 200`,
    ])
  })

  it.each([
    ['no entry at all', undefined],
    ['a record that is no object', { record: 'x', ipBound: false, staleAt: 0 }],
    // a structured clone keeps the holes; matching any URL against them would throw
    [
      'CDNs with holes',
      {
        record: {
          url: 'https://cdn.test/videos/1_x/abcdefgh/1795348800/m.m3u8',
          cdns: new Array(2),
        },
        ipBound: false,
        staleAt: 0,
      },
    ],
  ])(
    'a wrong record from some page (%s) breaks no other video, now or after a restart',
    async (_, entry) => {
      const refresher = await world.page('tab-1').open('12345_demo')
      await world.worker
        .receive({ kind: 'token-refresh:record', entry } as never, 'tab-2')
        .catch(() => undefined)
      const url = new URL('v0/seg_000.ts', refresher.url).href
      expect((await play(url)).status).toBe(200)
      world.restart()
      expect((await play(url)).status).toBe(200)
      await time.advance(14_000) // a new record of 12345_demo: stored again, with the restore
      world.restart()
      expect((await play(url)).sent[0]).toContain('/tok0002plain/')
    },
  )

  it('a damaged stored copy costs only its wrong entries after a restart', async () => {
    const store = memoryStore()
    world = fakeWorld(time, { store })
    const page = world.page('tab-1')
    const refresher = await page.open('12345_demo')
    store.entries = [
      null,
      5,
      { seen: 'x' },
      { record: { cdns: [null, null] } },
      ...store.entries,
    ] as never
    world.restart()
    page.frozen = true // only the stored copy can help
    const result = await play(new URL('v0/seg_000.ts', refresher.url).href)
    expect(result.status).toBe(200)
    expect(result.init?.mode).toBe('cors') // moved by the worker, not let through
  })

  it('after a restart without a stored copy asks the page instead of letting a stale pair through', async () => {
    world = fakeWorld(time, { store: { load: async () => [], save: async () => undefined } })
    const refresher = await world.page('tab-1').open('12345_demo')
    const first = refresher.url
    await time.advance(14_000)
    world.restart()
    const result = await play(new URL('v0/index.m3u8', first).href)
    expect(result.sent).toEqual([
      `/videos/12345_demo/tok0002plain/${refresher.record.expires}/v0/index.m3u8 200`,
    ])
  })

  it('with no state and no page that knows the video, sends the request unchanged', async () => {
    world = fakeWorld(time, { store: memoryStore() })
    await world.page('tab-1').open('12345_other')
    const url = 'https://cdn.test/videos/12345_demo/tok0001plain/1795348800/master.m3u8'
    const result = await play(url)
    expect(result.sent).toEqual(['/videos/12345_demo/tok0001plain/1795348800/master.m3u8 403'])
  })

  it.each([403, 410] as const)(
    'recovers a %i: the page refreshes once and the worker retries once',
    async (status) => {
      const refresher = await world.page('tab-1').open('12345_demo')
      const url = new URL('v0/seg_000.ts', refresher.url).href
      if (status === 410) world.cdn.revoke('tok0001plain')
      else world.cdn.issue('tok0001plain', 1) // the CDN no longer accepts token 1
      const result = await play(url)
      expect(result.status).toBe(200)
      expect(result.sent).toHaveLength(2)
      expect(result.sent[1]).toContain('/tok0002plain/')
      expect(refresher.refreshCount).toBe(1)
    },
  )

  it('never loops when the CDN rejects every token: one retry, then the 403', async () => {
    const refresher = await world.page('tab-1').open('12345_demo')
    world.cdn.rejectAll()
    const first = await play(new URL('v0/seg_000.ts', refresher.url).href)
    expect(first.status).toBe(403)
    expect(first.sent).toHaveLength(2)
    expect(refresher.refreshCount).toBe(1)
  })

  it.each([
    ['inside the lead window', 15_000],
    ['after the expiry (a laptop waking up)', 60_000],
  ])('a request %s waits for the page to refresh first', async (_, sleptMs) => {
    const refresher = await world.page('tab-1').open('12345_demo')
    time.jump(sleptMs) // no timer ran (throttled tab, sleep)
    const result = await play(new URL('v0/seg_005.ts', refresher.url).href)
    expect(result.sent).toEqual([
      `/videos/12345_demo/tok0002plain/${refresher.record.expires}/v0/seg_005.ts 200`,
    ])
  })

  it('a frozen page does not hold requests: bounded wait, then the current pair', async () => {
    const page = world.page('tab-1')
    const refresher = await page.open('12345_demo')
    time.jump(15_000)
    page.frozen = true
    const started = Date.now()
    const result = await play(new URL('v0/seg_005.ts', refresher.url).href)
    expect(Date.now() - started).toBeLessThan(1000)
    expect(result.sent[0]).toContain('/tok0001plain/')
    expect(result.status).toBe(200) // still valid: 15 of 20 seconds
  })

  it('keeps two videos of two tabs apart, and the newest record of one video wins', async () => {
    const demo = await world.page('tab-1').open('12345_demo')
    const other = await world.page('tab-2').open('12345_other')
    const a = await play(new URL('v0/seg_000.ts', demo.url).href, 'tab-1')
    const b = await play(new URL('v0/seg_000.ts', other.url).href, 'tab-2')
    expect(a.sent[0]).toContain('/12345_demo/tok0001plain/')
    expect(b.sent[0]).toContain('/12345_other/tok0001plain/')
    await time.advance(3000)
    const again = await world.page('tab-3').open('12345_demo') // later, so a later expiry
    const c = await play(new URL('v0/seg_001.ts', demo.url).href, 'tab-1')
    expect(c.sent[0]).toContain(`/tok0001plain/${again.record.expires}/`)
  })

  it('a tab whose stream was ended (a newer tab took its place) is not kept playing on the other tab’s tokens', async () => {
    const first = world.page('tab-1')
    const evicted = await first.open('12345_demo')
    const url = new URL('v0/seg_004.ts', evicted.url).href
    await time.advance(1000)
    await world.page('tab-2').open('12345_demo') // the newer stream: its record is the newest
    first.backends.get('12345_demo')?.refuseStreams('stream_ended')
    await time.advance(14_000) // tab-1's refresh is refused: it forgets the video
    expect(evicted.rejected).toBe(true)
    await time.advance(10_000) // tab-1's own pair has expired; tab-2 refreshed and plays on
    const result = await play(url, 'tab-1')
    // its own pair, refused by the CDN
    expect(result.sent).toEqual([expect.stringMatching(`^${new URL(url).pathname} 4(03|10)$`)])
    const again = await first.open('12345_demo') // played again (a new stream): moved again
    expect((await play(url, 'tab-1')).sent).toEqual([
      `/videos/12345_demo/${again.record.token}/${again.record.expires}/v0/seg_004.ts 200`,
    ])
  })

  it('moves IP-bound playback onto the IP host and token', async () => {
    const refresher = await world.page('tab-1').open('12345_demo', { ipBound: true })
    const result = await play(new URL('v0/seg_000.ts', refresher.record.url).href)
    expect(world.cdn.sent.at(-1)?.url).toBe(new URL('v0/seg_000.ts', refresher.record.url_ip).href)
    expect(result.status).toBe(200)
  })

  it("falls back to the request's own mode when the CDN refuses CORS", async () => {
    const refresher = await world.page('tab-1').open('12345_demo')
    world.cdn.refuseCors()
    const result = await play(new URL('v0/seg_000.ts', refresher.url).href)
    expect(result.init).toMatchObject({ mode: 'no-cors', credentials: 'include' })
    const next = await play(new URL('v0/seg_001.ts', refresher.url).href)
    expect(next.sent).toHaveLength(1) // remembered: no second cors attempt
  })

  it('one cors failure of a CDN that answered in cors mode before (an error page without CORS headers) does not end recovery there', async () => {
    const refresher = await world.page('tab-1').open('12345_demo')
    expect((await play(new URL('v0/seg_000.ts', refresher.url).href)).init?.mode).toBe('cors')
    world.cdn.refuseCors(1) // e.g. a 502 of its edge, sent without Access-Control-Allow-Origin
    const glitch = await play(new URL('v0/seg_001.ts', refresher.url).href)
    expect(glitch.init).toMatchObject({ mode: 'no-cors' }) // this one still gets its answer
    world.cdn.revoke('tok0001plain')
    const later = await play(new URL('v0/seg_002.ts', refresher.url).href)
    expect(later.init?.mode).toBe('cors') // a 410 it can see, and recover
    expect(later.status).toBe(200)
    expect(later.sent[1]).toContain('/tok0002plain/')
  })

  it("counts what it moved, for the page's detection: a media element's own media apart", async () => {
    const page = world.page('tab-1')
    const refresher = await page.open('12345_demo')
    await play(refresher.url, 'tab-1', {}, 'video')
    await play(new URL('v0/seg_000.ts', refresher.url).href) // a player's fetch: destination ''
    await play(new URL('v0/key.bin', refresher.url).href)
    expect(await page.connection.seen(refresher.url)).toEqual({
      playlists: 1,
      media: 2,
      element: 0,
    })
    await play(new URL('v0/seg_001.ts', refresher.url).href, 'tab-1', {}, 'video')
    expect((await page.connection.seen(refresher.url))?.element).toBe(1)
  })

  it('holds a request through a backend outage longer than the token: no expired pair leaves', async () => {
    const page = world.page('tab-1')
    const refresher = await page.open('12345_demo')
    page.backends.get('12345_demo')?.fail(1_000_000)
    await time.advance(22_000) // the token expired 2 s ago; every refresh failed
    expect(refresher.expired).toBe(true)
    const sentBefore = world.cdn.sent.length
    const pending = play(new URL('v0/seg_010.ts', refresher.url).href, 'tab-1', {}, 'video')
    await time.advance(40_000) // longer than the page holds one answer (30 s): asked again
    expect(world.cdn.sent.length).toBe(sentBefore)
    page.backends.get('12345_demo')?.fail(0) // the backend is back
    // the page answered the expired record again at 30 s: the worker asks anew after a pause
    // of real time (the harness's refresh timeout, 200 ms), and the page holds that question
    await new Promise((resolve) => setTimeout(resolve, 300))
    await time.advance(4000) // the next retry (every 1.5-3 s while playback waits)
    const result = await pending
    expect(result.status).toBe(200)
    expect(result.sent).toEqual([
      `/videos/12345_demo/${refresher.record.token}/${refresher.record.expires}/v0/seg_010.ts 200`,
    ])
  })

  it('a page that answers at once with the same expired record is asked again after a pause, not in a loop', async () => {
    const page = world.page('tab-1')
    const refresher = await page.open('12345_demo')
    let asked = 0
    const post = page.postMessage.bind(page)
    page.postMessage = (message, transfer) => {
      asked++
      post(message, transfer)
    }
    // the refresher ends but the page still answers for its video, at once, with its last record
    refresher.destroy()
    time.jump(30_000)
    const abort = new AbortController()
    const request = world.worker.handle(
      mediaRequest(new URL('v0/seg_001.ts', refresher.url).href, { signal: abort.signal }, 'video'),
      'tab-1',
    )
    // 300 ms of real time: the pause between two questions is a real second
    await new Promise((resolve) => setTimeout(resolve, 300))
    const questions = asked
    abort.abort()
    await request?.catch(() => undefined)
    expect(questions).toBeLessThanOrEqual(2)
  })

  it('an outage hold is bounded (outageHoldMs), and ends with the request when it is aborted', async () => {
    const page = world.page('tab-1')
    const refresher = await page.open('12345_demo')
    page.backends.get('12345_demo')?.fail(1_000_000)
    await time.advance(22_000)
    const aborting = new AbortController()
    const aborted = play(new URL('v0/seg_010.ts', refresher.url).href, 'tab-1', {
      signal: aborting.signal,
    }).catch((error: unknown) => error)
    const bounded = play(new URL('v0/seg_011.ts', refresher.url).href)
    await time.advance(5000)
    aborting.abort()
    await time.advance(40_000)
    expect(await aborted).toMatchObject({ name: 'AbortError' })
    // the CDN never saw the abandoned request
    expect(world.cdn.sent.filter((entry) => entry.url.includes('seg_010'))).toEqual([])
    await time.advance(90_000) // past 120 s: it leaves, and the CDN answers what it answers
    expect((await bounded).status).toBe(410)
  })

  it('a request on a newer pair than an expired record goes at once, not held for a record', async () => {
    const first = await world.page('tab-1').open('12345_demo')
    world.pages.delete('tab-1') // closed without a word (no forget): its record stays
    world.page('tab-2') // a page whose own player (hls.js, hooks) keeps its requests fresh
    time.jump(3_600_000) // an hour on: the worker's record of the video expired long ago
    const expires = first.record.expires + 3600
    world.cdn.issue('hooksToken1', expires)
    const url = `https://cdn.test/videos/12345_demo/hooksToken1/${expires}/v0/seg_000.ts`
    const answer = await Promise.race([
      play(url, 'tab-2'),
      new Promise((resolve) => setTimeout(resolve, 500, 'held')),
    ])
    expect(answer).toMatchObject({ status: 200, sent: [`${new URL(url).pathname} 200`] })
  })

  it('drops what it kept of a tab that forgot a video once that tab is gone', async () => {
    const first = world.page('tab-1')
    const a = await first.open('12345_demo')
    await time.advance(1000)
    await world.page('tab-2').open('12345_demo') // the newer record: tab-2 owns the video
    first.connection.destroy() // tab-1 forgets it: its requests are left alone from now on
    await play(new URL('v0/seg_000.ts', a.url).href, 'tab-2')
    const seen = async (clientId: string) => {
      let answer: unknown
      const port = {
        postMessage: (message: unknown) => {
          answer = message
        },
      }
      const message = { kind: 'token-refresh:seen', url: a.url } as const
      await world.worker.receive(message, clientId, port as unknown as MessagePort)
      return answer
    }
    expect(await seen('tab-1')).toEqual({ playlists: 0, media: 0, element: 0 })
    world.pages.delete('tab-1') // closed
    // a request of a video the worker does not know: it asks every open page which it holds
    await play('https://cdn.test/videos/12345_other/abcdefgh/1795348800/master.m3u8', 'tab-2')
    // nothing of tab-1 is kept: its id finds the video like any other page's
    expect(await seen('tab-1')).toEqual({ playlists: 0, media: 1, element: 0 })
  })

  it('a tab that closes forgets its own record only: another tab of the video keeps playing', async () => {
    const first = world.page('tab-1')
    const a = await first.open('12345_demo')
    await time.advance(1000)
    const second = world.page('tab-2')
    await second.open('12345_demo') // the newer record of the video, pushed by tab-2
    first.connection.destroy() // tab-1 closes: it forgets what it registered
    world.pages.delete('tab-1')
    second.frozen = true // nobody can answer: the worker's own record must still be there
    const result = await play(new URL('v0/seg_000.ts', a.url).href, 'tab-2')
    expect(result.status).toBe(200)
  })
})

// The worker's recovery of a refused token through the page that owns it (the core's
// `recover`): what it sends again, and how long it waits for the page's answer.
describe('RequestRewriter: a refused token', () => {
  it('a request aborted while the page recovers its token is not sent again', async () => {
    const refresher = await world.page('tab-1').open('12345_demo')
    world.cdn.revoke('tok0001plain')
    const aborting = new AbortController()
    const push = world.cdn.sent.push.bind(world.cdn.sent)
    world.cdn.sent.push = (...sent) => {
      aborting.abort() // the player gives up on it as the 410 comes back
      return push(...sent)
    }
    const result = await play(new URL('v0/seg_000.ts', refresher.url).href, 'tab-1', {
      signal: aborting.signal,
    }).catch((error: unknown) => error)
    expect(result).toMatchObject({ name: 'AbortError' })
    expect(world.cdn.sent).toHaveLength(1)
  })

  it('whose refresh fails waits for the retry through the page, not for the question timeout', async () => {
    const page = world.page('tab-1')
    const refresher = await page.open('12345_demo')
    const refused = `${new URL('v0/seg_000.ts', refresher.url).pathname} 403`
    world.cdn.issue('tok0001plain', 1) // the CDN no longer accepts token 1 (an IP change, a revocation)
    page.backends.get('12345_demo')?.fail(1) // the refresh the refusal starts fails (a blip)
    const pending = play(new URL('v0/seg_000.ts', refresher.url).href, 'tab-1', {}, 'video')
    // past the harness's question timeout (200 ms of real time): the page still holds the
    // answer for the refresh's retry, which the worker must wait for
    await new Promise((resolve) => setTimeout(resolve, 300))
    await time.advance(4000) // the retry (the outage pace while playback waits)
    const result = await pending
    expect(result.status).toBe(200)
    expect(result.sent).toEqual([
      refused,
      `/videos/12345_demo/${refresher.record.token}/${refresher.record.expires}/v0/seg_000.ts 200`,
    ])
    expect(refresher.refreshCount).toBe(1)
  })
})
