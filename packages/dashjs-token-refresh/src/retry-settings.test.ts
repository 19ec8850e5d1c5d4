import * as dashjs from 'dashjs'
import { expect, it } from 'vitest'
import { MIN_RETRY_ATTEMPTS, recoveringRetrySettings } from './retry-settings.ts'

it("raises dash.js's retries of the video's requests to make room for the recovery", () => {
  const player = dashjs.MediaPlayer().create()
  player.updateSettings(recoveringRetrySettings(player.getSettings()))
  const retries = player.getSettings().streaming?.retryAttempts
  expect(MIN_RETRY_ATTEMPTS).toBe(3)
  // dash.js's defaults: 3 each, 1 for XLink
  expect(retries).toMatchObject({
    MPD: 3,
    XLinkExpansion: 3,
    InitializationSegment: 3,
    MediaSegment: 3,
    IndexSegment: 3,
    BitstreamSwitchingSegment: 3,
  })
})

it("keeps the page's higher values and leaves DRM requests and retry intervals alone", () => {
  const player = dashjs.MediaPlayer().create()
  player.updateSettings({
    streaming: { retryAttempts: { MediaSegment: 6, license: 0 }, retryIntervals: { MPD: 250 } },
  })
  player.updateSettings(recoveringRetrySettings(player.getSettings()))
  const { retryAttempts, retryIntervals } = player.getSettings().streaming ?? {}
  expect(retryAttempts?.MediaSegment).toBe(6)
  expect(retryAttempts?.license).toBe(0)
  expect(retryIntervals?.MPD).toBe(250)
})
