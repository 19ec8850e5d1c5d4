import videojs from 'video.js'
import { TokenRefreshPlugin } from './plugin.ts'

type Player = ReturnType<typeof videojs>

/**
 * Registers the plugin as `tokenRefresh` (once, however often it is imported or called).
 *
 * @example
 * ```ts
 * registerTokenRefresh()
 * videojs('player', { plugins: { tokenRefresh: { getToken, refreshLeadSeconds: 10 } } })
 * ```
 */
export function registerTokenRefresh(): void {
  if (!videojs.getPlugin('tokenRefresh')) videojs.registerPlugin('tokenRefresh', TokenRefreshPlugin)
}

/**
 * The plugin instance of `player` (typed `player.tokenRefresh()`), or `undefined` before the
 * plugin was started on it.
 *
 * @example
 * ```ts
 * tokenRefreshOf(player)?.refresher?.refreshCount
 * ```
 */
export function tokenRefreshOf(player: Player): TokenRefreshPlugin | undefined {
  const withPlugin = player as unknown as { tokenRefresh?: () => TokenRefreshPlugin }
  return player.usingPlugin('tokenRefresh') ? withPlugin.tokenRefresh?.() : undefined
}
