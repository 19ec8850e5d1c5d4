import type { TokenRefreshOptions } from '../types.ts'
import { type FakeBackend, fakeTokenBackend } from './fake-backend.ts'
import { type FakeTime, fakeTime } from './fake-time.ts'
import { testRefreshOptions } from './refresh-options.ts'
import { tinyCdn } from './tiny-cdn.ts'

/** What {@link withTinyCdn} gives its body. */
export interface TinyCdnRun {
  time: FakeTime
  backend: FakeBackend
  cdn: Awaited<ReturnType<typeof tinyCdn>>
  /** {@link testRefreshOptions} on the fake clock, with the backend's tokens as the CDN knows them. */
  options: TokenRefreshOptions
}

/**
 * Runs `body` against a fresh fake clock, a token backend issuing on it and a {@link tinyCdn}
 * that accepts those tokens; the CDN is closed after the body, whether it passes or throws.
 *
 * @returns what `body` returns.
 * @example
 * await withTinyCdn(async ({ time, cdn, options }) => {
 *   const refresher = await TokenRefresher.create(options)
 *   await time.advance(14_000)
 *   expect(cdn.hits).toEqual([])
 * })
 */
export async function withTinyCdn<T>(body: (run: TinyCdnRun) => Promise<T>): Promise<T> {
  const time = fakeTime()
  const cdn = await tinyCdn(time.clock)
  try {
    const backend = fakeTokenBackend({ clock: time.clock })
    const options = testRefreshOptions(time, cdn.issuing(backend.getToken))
    return await body({ time, backend, cdn, options })
  } finally {
    await cdn.close()
  }
}
