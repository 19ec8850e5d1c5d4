import type { NativeProtection } from '@proj/sw-token-refresh'
import type { TokenRefresher } from '@proj/token-refresh'
import { showStatus } from './status-panel.ts'

/** What the page knows about one player: for people poking around in devtools, and for e2e. */
export interface PlayerState {
  refresher?: TokenRefresher
  /** How the player's requests are kept fresh: hooks, service-worker or swap. */
  mode?: string
  /** Native playback's protection (service worker or swaps, with their measurements). */
  native?: NativeProtection
  /** The video.js player, the Hls instance, the Shaka or dash.js player. */
  player?: unknown
  video?: HTMLVideoElement
  /** Failed token refreshes (onError). */
  errors: string[]
  /** Fatal player errors. */
  fatal: string[]
}

/** A player's panel line: what it is doing, or its error. */
export type Say = (message: string, isError: boolean) => void

/** The page's section of a player (`#videojs`, `#dashjs`, …). */
export function section(id: string): HTMLElement {
  return document.querySelector(`#${id}`) as HTMLElement
}

/** A panel line for players started with refresh=0. */
export const showStatic =
  (name: string, label = 'refresh', value = 'off (refresh=0)'): Say =>
  (message, isError) => {
    const list = section(name).querySelector('dl') as HTMLElement
    list.innerHTML = `<dt>${label}</dt><dd>${value}</dd><dt>player</dt><dd></dd>`
    const state = list.lastElementChild as HTMLElement
    state.textContent = message
    if (isError) state.className = 'error'
  }

/**
 * A player whose own hooks keep its requests fresh (hls.js, Shaka, dash.js): its state follows
 * `refresher`, and so does its panel; returns the panel's player line.
 */
export function showHooked(
  name: string,
  state: PlayerState,
  refresher: TokenRefresher,
  ipBound: boolean,
): Say {
  state.refresher = refresher
  state.mode = 'hooks'
  return showStatus(section(name).querySelector('dl') as HTMLElement, refresher, ipBound)
}

/** The panel line for an element's state. */
export function watchElement(video: HTMLVideoElement, say: Say) {
  video.addEventListener('playing', () => say('playing', false))
  video.addEventListener('waiting', () => say('buffering', false))
}
