import { MAX_RECOVERY_RETRIES } from '@proj/token-refresh'
import type { MediaPlayerSettingClass } from 'dashjs'

/** The request types of the video's files (dash.js's `HTTPRequest` types): not DRM, not MSS. */
const VIDEO_REQUESTS = [
  'MPD',
  'XLinkExpansion',
  'InitializationSegment',
  'MediaSegment',
  'IndexSegment',
  'BitstreamSwitchingSegment',
] as const

/**
 * Retries one request needs at most: a move to the next CDN, then `MAX_RECOVERY_RETRIES`
 * sendings with a new pair.
 */
export const MIN_RETRY_ATTEMPTS = 1 + MAX_RECOVERY_RETRIES

/**
 * dash.js settings that leave room for the recovery: at least {@link MIN_RETRY_ATTEMPTS}
 * `streaming.retryAttempts` for the MPD and every kind of segment (dash.js's default is 3, and 1
 * for XLink). Higher values of the page are kept; `retryIntervals` are left alone.
 *
 * @example
 * ```ts
 * player.updateSettings(recoveringRetrySettings(player.getSettings()))
 * ```
 */
export function recoveringRetrySettings(
  settings: MediaPlayerSettingClass,
): MediaPlayerSettingClass {
  const attempts = settings.streaming?.retryAttempts ?? {}
  const retryAttempts = Object.fromEntries(
    VIDEO_REQUESTS.map((type) => [type, Math.max(attempts[type] ?? 0, MIN_RETRY_ATTEMPTS)]),
  )
  return { streaming: { retryAttempts } }
}
