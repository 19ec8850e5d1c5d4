// Where the playback benchmark's one-player page (page/index.html) is served, by vite preview.
import { PORTS } from '@proj/e2e/stack'

/** The page's port: next to the e2e demo's, so both stacks' ports stay apart from `npm start`. */
export const PAGE_PORT = PORTS.demo + 1

/**
 * The page's URL for one load (see page/bench.ts for the query).
 *
 * @example
 * ```ts
 * await page.goto(pageUrl(new URLSearchParams({ player: 'hlsjs', token })))
 * ```
 */
export function pageUrl(query: URLSearchParams): string {
  return `http://127.0.0.1:${PAGE_PORT}/?${query}`
}
