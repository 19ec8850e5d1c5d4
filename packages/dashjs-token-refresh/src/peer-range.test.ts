// The peer range `dashjs ^5.0.0` is true: the adapter runs on the lowest admitted dash.js (5.0.0,
// installed beside the current one as the npm alias `dashjs-lowest`) and on the current one.
// Not 4.x: request and response interceptors (`addRequestInterceptor`, `addResponseInterceptor`,
// the seam this package is built on) came with 5.0.0. 4.7's `RequestModifier` (through
// `player.extend`) can rewrite a request and wait, but nothing tells it what a sending got: the
// 403/410 recovery and the failover of each request need the response seam. Each release's real
// MediaPlayer: its settings, its interceptor registration, its event bus and error codes, and
// its reset.
import { TokenRejectedError } from '@proj/token-refresh'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from '@proj/token-refresh/testing'
import type * as dashjsType from 'dashjs'
import { describe, expect, it } from 'vitest'
import { createTokenRefresh } from './create-token-refresh.ts'
import type { TokenRejectedDashError } from './give-up.ts'

type Dashjs = typeof dashjsType

// a variable specifier: the alias has its own copy of dash.js's type declarations
const LOWEST: string = 'dashjs-lowest'
const RELEASES = [
  { name: 'current', load: () => import('dashjs'), version: /^5\./ },
  { name: 'lowest admitted', load: () => import(LOWEST), version: /^5\.0\.0$/ },
]

describe.each(RELEASES)('dash.js $name', ({ load, version }) => {
  it('takes the interceptors and the retries, raises the give-up as its own error, and its reset ends the refresh', async () => {
    const dashjs = (await load()) as Dashjs
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock })
    const refresh = await createTokenRefresh({
      ...testRefreshOptions(time, backend.getToken),
      dashjs,
    })
    const player = dashjs.MediaPlayer().create()
    expect(player.getVersion()).toMatch(version)
    refresh.attach(player)
    expect(player.getSettings().streaming?.retryAttempts?.XLinkExpansion).toBe(3)

    const errors: TokenRejectedDashError[] = []
    player.on(dashjs.MediaPlayer.events.ERROR, (event: unknown) =>
      errors.push((event as { error: TokenRejectedDashError }).error),
    )
    // three fresh tokens refused in a row: the refresher gives up
    for (let token = 0; token < 3; token++) {
      refresh.refresher.recover(refresh.url)
      await time.advance(0)
    }
    await Promise.resolve()
    expect(errors.map((error) => error.data.cause)).toEqual([expect.any(TokenRejectedError)])
    expect(errors[0]?.code).toBe(dashjs.MediaPlayer.errors.DOWNLOAD_ERROR_ID_CONTENT_CODE)

    expect(() => player.reset()).toThrow('MediaPlayer not initialized')
    await time.advance(60_000)
    expect(backend.calls).toBe(3)
  })
})
