import { describe, expect, it } from 'vitest'
import { HeldRequests, waitAtMost } from './held-requests.ts'
import { fakeTime } from './testing/index.ts'

describe('HeldRequests', () => {
  it('holds until released, counting who waits', async () => {
    const time = fakeTime()
    const held = new HeldRequests()
    let done = false
    const waiting = held.hold(30_000, time.timers).then(() => {
      done = true
    })
    expect(held.size).toBe(1)
    await time.advance(10_000)
    expect(done).toBe(false)
    held.releaseAll()
    await waiting
    expect(held.size).toBe(0)
  })

  it('lets a request go after the bound when nothing comes', async () => {
    const time = fakeTime()
    const held = new HeldRequests()
    let done = false
    void held.hold(30_000, time.timers).then(() => {
      done = true
    })
    await time.advance(29_999)
    expect(done).toBe(false)
    await time.advance(1)
    expect(done).toBe(true)
    expect(held.size).toBe(0)
  })
})

describe('waitAtMost', () => {
  it('never rejects, and clears its timer when the promise wins', async () => {
    const time = fakeTime()
    await expect(
      waitAtMost(Promise.reject(new Error('x')), 5000, time.timers),
    ).resolves.toBeUndefined()
    let done = false
    void waitAtMost(new Promise(() => undefined), 5000, time.timers).then(() => {
      done = true
    })
    await time.advance(5000)
    expect(done).toBe(true)
  })
})
