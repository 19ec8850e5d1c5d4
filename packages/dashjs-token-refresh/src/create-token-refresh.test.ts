import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import * as dashjs from 'dashjs'
import { describe, expect, it } from 'vitest'
import { createTokenRefresh } from './create-token-refresh.ts'
import type { DashjsModule } from './dashjs-module.ts'

const setup = () => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock })
  return { time, backend, options: { ...testRefreshOptions(time, backend.getToken), dashjs } }
}

describe('createTokenRefresh', () => {
  it('refuses to start without the page’s dashjs, before fetching a token', async () => {
    const { backend, options } = setup()
    const without = { ...options, dashjs: undefined as unknown as DashjsModule }
    await expect(createTokenRefresh(without)).rejects.toThrow(/options\.dashjs is required/)
    const notDashjs = { ...options, dashjs: { MediaPlayer: {} } as unknown as DashjsModule }
    await expect(createTokenRefresh(notDashjs)).rejects.toThrow(TypeError)
    expect(backend.calls).toBe(0)
  })

  it('gives the record’s URL to play and refreshes before expiry', async () => {
    const { time, backend, options } = setup()
    const refresh = await createTokenRefresh(options)
    expect(refresh.url).toBe(refresh.refresher.record.url)
    await time.advance(14_000) // the 20-s token's lead time (6 s)
    expect(backend.calls).toBe(2)
    expect(refresh.url).toContain('/tok0002plain/')
    refresh.destroy()
  })

  it('attach makes room for the recovery in the player’s retries', async () => {
    const { options } = setup()
    const refresh = await createTokenRefresh(options)
    const player = dashjs.MediaPlayer().create()
    refresh.attach(player)
    expect(player.getSettings().streaming?.retryAttempts?.XLinkExpansion).toBe(3)
    refresh.destroy()
  })

  for (const method of ['reset', 'destroy'] as const)
    it(`player.${method}() stops the refresh (before dash.js's own ${method})`, async () => {
      const { time, backend, options } = setup()
      const refresh = await createTokenRefresh(options)
      const player = dashjs.MediaPlayer().create()
      const own = player[method]
      refresh.attach(player)
      expect(player[method]).not.toBe(own)
      // never initialized (no MediaSource here): dash.js's own method throws, after ours ran
      expect(() => player[method]()).toThrow('MediaPlayer not initialized')
      expect(player[method]).toBe(own)
      await time.advance(60_000)
      expect(backend.calls).toBe(1)
      expect(time.pending).toBe(0)
    })

  it('refuses to attach a player once the refresh has ended (a player would play on a frozen token)', async () => {
    const { options } = setup()
    const refresh = await createTokenRefresh(options)
    refresh.destroy()
    expect(() => refresh.attach(dashjs.MediaPlayer().create())).toThrow(/refresh has ended/)
  })

  it('refresh.destroy() gives the player its own reset and destroy back', async () => {
    const { time, backend, options } = setup()
    const refresh = await createTokenRefresh(options)
    const player = dashjs.MediaPlayer().create()
    const { reset, destroy } = player
    refresh.attach(player)
    refresh.destroy()
    expect(player.reset).toBe(reset)
    expect(player.destroy).toBe(destroy)
    await time.advance(60_000)
    expect(backend.calls).toBe(1)
  })

  it('a refresh attached after another keeps its teardown when the first one ends', async () => {
    const { time, backend, options } = setup()
    const first = await createTokenRefresh(options)
    const second = await createTokenRefresh(options)
    const player = dashjs.MediaPlayer().create()
    first.attach(player)
    second.attach(player) // the player reused for the next video
    first.destroy()
    expect(() => player.reset()).toThrow('MediaPlayer not initialized')
    expect(second.refresher.destroyed).toBe(true)
    await time.advance(60_000)
    expect(backend.calls).toBe(2) // each refresh's first token, nothing renewed
  })
})
