import type { Context } from 'hono'
import { basePath } from 'hono/route'

/**
 * The path the token app is mounted under in a parent app (`parent.route('/video', app)` →
 * `/video`), read from the route that matched, with the parent's parameters filled in; `''`
 * when the app serves at the root. Never configured: one app object answers under any prefix.
 *
 * @example
 * ```ts
 * const sessionUrl = `${origin}${mountPrefix(c)}/s/${video}/${credential}/master.m3u8`
 * ```
 */
export function mountPrefix(c: Context): string {
  const base = basePath(c)
  return base === '/' ? '' : base.replace(/\/+$/, '')
}
