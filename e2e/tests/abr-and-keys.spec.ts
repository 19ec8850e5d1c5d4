// Scenario 7: after the 2nd refresh the player switches to the AES-128 rendition (v1): its
// playlist, its key and its segments are all requested with the current token.
import type { Page } from '@playwright/test'
import {
  demoUrl,
  expect,
  PLAYERS,
  type PlayerName,
  probe,
  test,
  waitForPlayback,
} from '../support/demo.ts'

/** Plays only the rendition of `height` (144: clear v0, 240: encrypted v1). */
const lockRendition = (page: Page, player: PlayerName, height: number) =>
  page.evaluate(
    ([name, wanted]) => {
      const state = (window as unknown as { demo: Record<string, { player: unknown }> }).demo[
        name as string
      ]
      if (name === 'shaka') {
        const shakaPlayer = state?.player as {
          configure(config: object): void
          getVariantTracks(): { height: number | null }[]
          selectVariantTrack(track: unknown, clearBuffer: boolean): void
        }
        shakaPlayer.configure({ abr: { enabled: false } })
        const track = shakaPlayer.getVariantTracks().find((variant) => variant.height === wanted)
        if (track) shakaPlayer.selectVariantTrack(track, true)
      } else if (name === 'hlsjs') {
        const hls = state?.player as {
          levels: { height: number }[]
          currentLevel: number
          autoLevelCapping: number
        }
        hls.autoLevelCapping = -1
        hls.currentLevel = hls.levels.findIndex((level) => level.height === wanted)
      } else {
        const player = state?.player as {
          tech(safety: boolean): {
            vhs: { representations(): { height: number; enabled(on: boolean): void }[] }
          }
        }
        for (const rendition of player.tech(true).vhs.representations())
          rendition.enabled(rendition.height === wanted)
      }
    },
    [player, height] as const,
  )

for (const player of PLAYERS)
  test(`${player}: a switch to the encrypted rendition after the 2nd refresh uses the current token`, async ({
    page,
    traffic,
  }) => {
    // Live, so requests keep coming after the switch (VHS fetches a whole VOD within seconds).
    // Play the clear rendition until the switch; hls.js must not touch v1 before (level=0: start
    // and cap there), so v1's playlist and key are first requested after it.
    await page.goto(`${demoUrl({ player, type: 'live', expire: 20, lead: 6 })}&level=0`)
    await waitForPlayback(page, player)
    await lockRendition(page, player, 144)
    if (player === 'hlsjs')
      expect(traffic.media.filter((entry) => entry.path.startsWith('v1/'))).toEqual([])
    await expect
      .poll(async () => (await probe(page, player)).refreshCount, { timeout: 45_000 })
      .toBeGreaterThanOrEqual(2)
    const switchedAt = Date.now()
    await lockRendition(page, player, 240)
    await expect
      .poll(
        () =>
          traffic.media.filter(
            (entry) => entry.at > switchedAt && /^v1\/(seg|live)_/.test(entry.path),
          ).length,
        { timeout: 20_000 },
      )
      .toBeGreaterThan(2)

    // requests the player itself cancelled (ABR, buffer management) got no answer to judge
    const v1 = traffic.media.filter(
      (entry) =>
        entry.at > switchedAt && entry.path.startsWith('v1/') && entry.status !== 'aborted',
    )
    // hls.js and VHS fetch v1's key when they switch to it; Shaka keeps the key it fetched when it
    // first played v1 (it starts there): every key request, whenever it left, must be good
    const keys = traffic.media.filter((entry) => entry.path === 'v1/key.bin')
    if (player === 'shaka') expect(keys.length).toBeGreaterThan(0)
    else expect(v1.filter((entry) => entry.path === 'v1/key.bin').length).toBeGreaterThan(0)
    expect(keys.every((entry) => entry.status === 200 || entry.status === 'aborted')).toBe(true)
    expect(v1.every((entry) => entry.status === 200)).toBe(true)
    // the token each request carried was the newest the page had received when it left
    for (const entry of v1) {
      const current = traffic.tokens
        .filter((record) => record.at <= entry.at)
        .slice(-2)
        .map((record) => record.token)
      expect(current, `${entry.path} at ${entry.at}`).toContain(entry.token)
    }
    // and none of them used a token from before the 2nd refresh
    const early = new Set(traffic.tokens.slice(0, 3).map((record) => record.token))
    expect(v1.filter((entry) => early.has(entry.token))).toEqual([])
    expect(traffic.rejected()).toEqual([])
    expect((await probe(page, player)).fatal).toEqual([])
  })
