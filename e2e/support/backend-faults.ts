import type { Route } from '@playwright/test'

/**
 * Answers a token request as a backend in an outage does: 503 with a JSON error, readable by the
 * page (CORS), so the players see a failed refresh and not a network error.
 *
 * @example
 * ```ts
 * await page.route(/:\d+\/token\?/, (route) => (down ? answerOutage(route) : route.continue()))
 * ```
 */
export function answerOutage(route: Route): Promise<void> {
  return route.fulfill({
    status: 503,
    headers: { 'access-control-allow-origin': '*' },
    contentType: 'application/json',
    body: '{"error":"injected outage"}',
  })
}

/**
 * Answers a token request as a backend with stream limits refuses one (the issue-33 contract):
 * 409 with a JSON body, `stream_limit` with the limit and the active streams' times, or
 * `stream_ended` with its reason, readable by the page (CORS).
 *
 * @example
 * ```ts
 * await page.route(/:\d+\/token\?/, (route) => (full ? answerStreamRefusal(route) : route.continue()))
 * ```
 */
export function answerStreamRefusal(
  route: Route,
  code: 'stream_limit' | 'stream_ended' = 'stream_limit',
): Promise<void> {
  const now = new Date().toISOString()
  const body =
    code === 'stream_limit'
      ? {
          error: 'stream limit reached: 2 of 2 streams are playing',
          code,
          limit: 2,
          streams: [
            { started_at: now, last_seen_at: now },
            { started_at: now, last_seen_at: now },
          ],
        }
      : { error: 'this stream was ended: a newer one took its place', code, reason: 'evicted' }
  return route.fulfill({
    status: 409,
    headers: { 'access-control-allow-origin': '*' },
    contentType: 'application/json',
    body: JSON.stringify(body),
  })
}
