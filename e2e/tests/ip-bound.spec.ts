// Scenario 3: ipBound plays url_ip with token_ip on the IP-bound host, where nginx checks the
// token against $remote_addr; a token bound to another address gets 403.
//
// The local token worker (wrangler dev) sees no viewer address (no CF-Connecting-IP), so the
// page asks for the IP explicitly with client_ip, as a backend behind a proxy would learn it.

import {
  demoUrl,
  expect,
  PLAYERS,
  probe,
  test,
  waitForPlayback,
  watchPlayback,
} from '../support/demo.ts'
import { PORTS } from '../support/stack.ts'

for (const player of PLAYERS) {
  test(`${player}: ipBound plays through the IP-bound host, across a refresh`, async ({
    page,
    traffic,
  }) => {
    await page.goto(demoUrl({ player, ipBound: true, clientIp: '127.0.0.1' }))
    await waitForPlayback(page, player)
    const run = await watchPlayback(page, player, 25_000)
    expect(run.advanced).toBeGreaterThan(20)
    expect(traffic.rejected()).toEqual([])
    expect(traffic.media.length).toBeGreaterThan(5)
    expect(
      traffic.media.every((entry) => entry.url.startsWith(`http://127.0.0.1:${PORTS.nginxIp}/`)),
    ).toBe(true)
    // every request carried an IP-bound token the backend issued
    const bound = new Set(traffic.tokens.map((record) => record.token_ip))
    expect(traffic.media.every((entry) => bound.has(entry.token))).toBe(true)
    expect((await probe(page, player)).refreshCount).toBeGreaterThanOrEqual(1)
  })

  test(`${player}: a token bound to another IP gets 403 and does not play`, async ({
    page,
    traffic,
  }) => {
    await page.goto(demoUrl({ player, ipBound: true, clientIp: '10.0.0.1' }))
    await expect
      .poll(() => traffic.media.filter((entry) => entry.status === 403).length)
      .toBeGreaterThan(0)
    expect(traffic.media.filter((entry) => entry.status === 200)).toEqual([])
    await expect
      .poll(async () => (await probe(page, player)).fatal.length, { timeout: 30_000 })
      .toBeGreaterThan(0)
    expect((await probe(page, player)).time).toBe(0)
  })
}
