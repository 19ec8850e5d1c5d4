import { TokenRefresher, TokenRejectedError } from '@proj/token-refresh'
import { StreamLimitError } from '@proj/token-refresh/stream-limit'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import * as dashjs from 'dashjs'
import { expect, it } from 'vitest'
import { failOnTokenRejection, type TokenRejectedDashError } from './give-up.ts'
import { type RequestInterceptor, requestAttempts } from './request-attempts.ts'

type Sending = Parameters<RequestInterceptor>[0]

/** A refresher on a fake backend, a real dash.js MediaPlayer, its attempts and give-up, the errors it raised. */
const giveUpOnDashjs = async (streams = false) => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, streams })
  const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
  const player = dashjs.MediaPlayer().create()
  const attempts = requestAttempts(refresher, player, dashjs)
  const stop = failOnTokenRejection(dashjs, player, refresher, attempts)
  const events: { error: TokenRejectedDashError }[] = []
  player.on(dashjs.MediaPlayer.events.ERROR, (event: unknown) =>
    events.push(event as { error: TokenRejectedDashError }),
  )
  return { time, backend, refresher, attempts, stop, events }
}

// A CDN that refuses every token, as dash.js's interceptors see it: the MPD refused with the
// first token and with each fresh one. The refresher gives up after the third; the player's
// own event bus (a real dash.js MediaPlayer) then carries one error, and nothing more is sent.
it("ends in dash.js's own error event, once, naming the refused request; then holds the video's requests", async () => {
  const { backend, refresher, attempts, stop, events } = await giveUpOnDashjs()
  const mpd = { type: 'MPD', duration: Number.NaN }
  const send = () =>
    attempts.request({
      url: refresher.url,
      timeout: 10_000,
      customData: { request: mpd },
    } as unknown as Sending)
  for (let sending = 0; sending < 3; sending++) {
    const request = await send()
    await attempts.response({ request, status: 403, url: request.url })
  }
  await Promise.resolve() // the event is raised once dash.js's interceptors are done
  expect(events).toHaveLength(1)
  const { error } = events[0] ?? {}
  expect(error?.code).toBe(dashjs.MediaPlayer.errors.DOWNLOAD_ERROR_ID_MANIFEST_CODE)
  expect(error?.data.cause).toBeInstanceOf(TokenRejectedError)
  expect(error?.message).toContain('SECRET_KEY and CLIENT_ID')
  expect(error?.data).toMatchObject({ status: 403, url: expect.stringContaining('tok0003plain') })
  expect(backend.calls).toBe(3)

  const held = await Promise.race([
    send().then(() => 'sent'),
    new Promise((resolve) => setTimeout(() => resolve('held'), 20)),
  ])
  expect(held).toBe('held')
  // later failures of the refresher are not the give-up: no second event
  refresher.dispatchEvent(new CustomEvent('error', { detail: new Error('backend down') }))
  await Promise.resolve()
  expect(events).toHaveLength(1)
  stop()
  attempts.detach()
  refresher.destroy()
})

// The token backend refuses the stream at a planned refresh: the same error event, at once, with
// the StreamLimitError as its cause, and the video's requests held from then on.
it.each(['stream_limit', 'stream_ended'] as const)(
  "a refused stream (%s) ends in dash.js's own error event at the refused refresh",
  async (code) => {
    const { time, backend, refresher, attempts, stop, events } = await giveUpOnDashjs(true)
    backend.refuseStreams(code)
    await time.advance(14_000)
    expect(events).toHaveLength(1)
    const { error } = events[0] ?? {}
    expect(error?.code).toBe(dashjs.MediaPlayer.errors.DOWNLOAD_ERROR_ID_CONTENT_CODE)
    expect(error?.data.cause).toBeInstanceOf(StreamLimitError)
    expect(error?.data.cause).toMatchObject({ code })
    expect(error?.data.url).toBeUndefined()
    const sending = {
      url: refresher.url,
      timeout: 10_000,
      customData: { request: { type: 'MediaSegment', duration: 2 } },
    } as unknown as Sending
    const held = await Promise.race([
      attempts.request(sending).then(() => 'sent'),
      new Promise((resolve) => setTimeout(() => resolve('held'), 20)),
    ])
    expect(held).toBe('held')
    await time.advance(60_000)
    expect(backend.calls).toBe(2)
    expect(events).toHaveLength(1)
    stop()
    attempts.detach()
    refresher.destroy()
  },
)
