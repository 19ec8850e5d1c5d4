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
