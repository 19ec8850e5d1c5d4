import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from './testing/index.ts'
import { TokenRefresher } from './token-refresher.ts'
import type { TokenRefresherEventMap } from './token-refresher-events.ts'
import type { TokenRecord } from './types.ts'

// The type assertions here are checked by `tsc` (the package's typecheck), the rest by vitest.

const refreshers: TokenRefresher[] = []
afterEach(() => {
  for (const refresher of refreshers.splice(0)) refresher.destroy()
})

const setup = async (getToken?: () => Promise<TokenRecord>) => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock })
  const refresher = await TokenRefresher.create(
    testRefreshOptions(time, getToken ?? backend.getToken),
  )
  refreshers.push(refresher)
  return { time, backend, refresher }
}

describe('typed events', () => {
  it("tokenrefreshed's listener gets CustomEvent<TokenRecord>: event.detail.expires compiles", async () => {
    const { refresher } = await setup()
    const seen: number[] = []
    refresher.addEventListener('tokenrefreshed', function (event) {
      expectTypeOf(event).toEqualTypeOf<CustomEvent<TokenRecord>>()
      expectTypeOf(this).toEqualTypeOf<TokenRefresher>()
      seen.push(event.detail.expires)
    })
    const record = await refresher.refresh()
    expect(seen).toEqual([record.expires])
  })

  it("error's listener gets CustomEvent<Error>, an Error even when getToken rejects with a string", async () => {
    let fail = false
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock })
    const refresher = await TokenRefresher.create(
      testRefreshOptions(time, () => (fail ? Promise.reject('backend down') : backend.getToken())),
    )
    refreshers.push(refresher)
    const messages: string[] = []
    const onError = (event: TokenRefresherEventMap['error']) => {
      expectTypeOf(event.detail).toEqualTypeOf<Error>()
      messages.push(event.detail.message)
    }
    refresher.addEventListener('error', onError)
    fail = true
    await expect(refresher.refresh()).rejects.toBe('backend down')
    refresher.removeEventListener('error', onError)
    await expect(refresher.refresh()).rejects.toBe('backend down')
    expect(messages).toEqual(['backend down'])
  })

  it('other event types keep the plain EventTarget signature', async () => {
    const { refresher } = await setup()
    const listener = vi.fn((event: Event) => {
      expectTypeOf(event).toEqualTypeOf<Event>()
    })
    refresher.addEventListener('custom', listener)
    refresher.dispatchEvent(new Event('custom'))
    refresher.removeEventListener('custom', listener)
    refresher.dispatchEvent(new Event('custom'))
    expect(listener).toHaveBeenCalledTimes(1)
    // a listener for the wrong detail does not compile
    // @ts-expect-error: tokenrefreshed carries a TokenRecord, not an Error
    refresher.addEventListener('tokenrefreshed', (event: CustomEvent<Error>) => event.detail.stack)
  })
})
