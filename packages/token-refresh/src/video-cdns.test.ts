import { describe, expect, it, vi } from 'vitest'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from './testing/index.ts'
import { TokenRefresher } from './token-refresher.ts'

// The lane is a module of its own, imported when the first record with several CDNs comes in:
// counted here by loading it through a mock that records each load.
const lane = vi.hoisted(() => ({ loads: 0 }))
vi.mock('./cdn-lane.ts', async (importOriginal) => {
  lane.loads++
  return importOriginal()
})

describe('the CDN lane, loaded on demand', () => {
  it('is never loaded for records of one CDN, and loaded before create resolves for several', async () => {
    const time = fakeTime()
    const one = fakeTokenBackend({ clock: time.clock })
    const single = await TokenRefresher.create(testRefreshOptions(time, one.getToken))
    await time.advance(60_000) // refreshes: still one CDN
    expect(single.refreshCount).toBeGreaterThan(2)
    expect(lane.loads).toBe(0)
    single.destroy()
    const two = fakeTokenBackend({ clock: time.clock, cdns: ['a', 'b'] })
    const several = await TokenRefresher.create(testRefreshOptions(time, two.getToken))
    expect(lane.loads).toBe(1)
    expect(several.activeCdn).toBe('a') // the first request can fail over already
    several.destroy()
  })

  it('follows a record that names several CDNs after records that named one', async () => {
    const time = fakeTime()
    const one = fakeTokenBackend({ clock: time.clock })
    const two = fakeTokenBackend({ clock: time.clock, cdns: ['a', 'b'] })
    let calls = 0
    const refresher = await TokenRefresher.create(
      testRefreshOptions(time, () => (++calls === 1 ? one.getToken() : two.getToken())),
    )
    expect(refresher.activeCdn).toBeUndefined()
    await time.advance(14_000) // the refresh brings cdns: until the lane is in, the preferred CDN
    expect(refresher.url).toContain('//a.cdn.test/')
    await vi.waitFor(() => expect(refresher.activeCdn).toBe('a'))
    refresher.destroy()
  })
})
