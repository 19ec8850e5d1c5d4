// Issue 13, part 3: rotating the CDN secret during playback. The runbook (docs/cdn.md): the CDN accepts
// the new and the previous secret, the token worker switches to the new one, the old one is
// dropped after the longest token lifetime. Then a hard switch (no transition window): the 403
// recovery brings playback back, and the stall it costs is measured. Last, a CDN that rejects
// every token (part 0): one clear TokenRejectedError within 30 s and fewer than 40 requests. Live, so the players keep
// requesting (a VOD player may have buffered everything before the rotation).

import { demoUrl, expect, probe, test, waitForPlayback, watchPlayback } from '../support/demo.ts'
import { rotatingCdn, rotatingTokenWorker } from '../support/rotation.ts'

const PLAYERS = ['videojs', 'hlsjs'] as const

for (const [slot, player] of PLAYERS.entries())
  test(`${player}: secret rotation mid-playback without a stall, then a hard switch recovered by the 403 path`, async ({
    page,
    traffic,
  }, testInfo) => {
    const cdn = await rotatingCdn(slot, 'rotation-secret-a')
    const worker = await rotatingTokenWorker(slot, cdn, 'rotation-secret-a')
    try {
      await page.goto(demoUrl({ player, type: 'live', expire: 20, lead: 6, tokenUrl: worker.url }))
      await waitForPlayback(page, player)
      await watchPlayback(page, player, 4_000)

      // the runbook: CDN on new + previous, then the worker deployed with the new secret
      await cdn.rotate({ secret: 'rotation-secret-b', previous: 'rotation-secret-a' })
      const rotatedAt = Date.now()
      await worker.restart('rotation-secret-b')
      const rotation = await watchPlayback(page, player, 18_000)
      expect(rotation.longestStallMs).toBeLessThanOrEqual(1000)
      expect(traffic.rejected()).toEqual([])
      const newTokens = new Set(
        traffic.tokens.filter((record) => record.at > rotatedAt).map((record) => record.token),
      )
      expect(newTokens.size).toBeGreaterThan(0)
      // media of tokens signed with the new secret reached nginx and were accepted
      expect(
        traffic.media.some((entry) => newTokens.has(entry.token) && entry.status === 200),
      ).toBe(true)
      expect((await probe(page, player)).fatal).toEqual([])

      // a hard switch: the CDN knows only a third secret, the worker signs with it
      await worker.restart('rotation-secret-c')
      const switchedAt = Date.now()
      await cdn.rotate({ secret: 'rotation-secret-c' })
      const hard = await watchPlayback(page, player, 16_000)
      const rejected = traffic.rejected().filter((entry) => entry.at >= switchedAt)
      testInfo.annotations.push({
        type: 'hard switch',
        description: `${player}: longest stall ${hard.longestStallMs} ms, ${rejected.length} rejected media requests`,
      })
      console.log(
        `secret rotation, ${player}: hard switch stall ${hard.longestStallMs} ms, ${rejected.length} rejected`,
      )
      expect(hard.advanced).toBeGreaterThan(11)
      expect(hard.longestStallMs).toBeLessThanOrEqual(5000)
      expect((await probe(page, player)).fatal).toEqual([])

      // part 0: a CDN that rejects every token (its secret is one nobody signs with): recovery
      // gives up with one clear error, in bounded time and requests, instead of looping
      const brokenAt = Date.now()
      const mediaBefore = traffic.media.length
      await cdn.rotate({ secret: 'rotation-secret-nobody-has' })
      const rejectedErrors = async () =>
        (await probe(page, player)).errors.filter((error) => error.includes('TokenRejectedError'))
      await expect.poll(async () => (await rejectedErrors()).length, { timeout: 30_000 }).toBe(1)
      const gaveUpAfterMs = Date.now() - brokenAt
      await page.waitForTimeout(3_000) // nothing more afterwards
      expect(await rejectedErrors()).toHaveLength(1)
      const requests = traffic.media.length - mediaBefore
      console.log(
        `reject-everything CDN, ${player}: TokenRejectedError after ${gaveUpAfterMs} ms, ${requests} media requests`,
      )
      expect(requests).toBeLessThan(40)
      expect((await rejectedErrors())[0]).toContain('SECRET_KEY and CLIENT_ID')
    } finally {
      await worker.stop()
      await cdn.stop()
    }
  })
