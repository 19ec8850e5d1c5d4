import { fakeTime } from '@proj/token-refresh/testing'
import { beforeEach, describe, expect, it } from 'vitest'
import { fakeWorld, player } from '../../test/harness.ts'

let time: ReturnType<typeof fakeTime>
let world: ReturnType<typeof fakeWorld>

beforeEach(() => {
  time = fakeTime()
  world = fakeWorld(time)
})

// The worker's recovery of a refused token through the page that owns it (the core's
// `recover`): what it sends again, and how long it waits for the page's answer.

/** What the worker answers for `url`, and the URLs it really sent. */
const play = player(() => world)

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
