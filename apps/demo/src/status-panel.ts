import type { TokenRecord, TokenRefresher } from '@proj/token-refresh'

/**
 * `m:ss` until `expires`, or how long ago it passed.
 *
 * @example
 * ```ts
 * formatCountdown(75) // '1:15'
 * formatCountdown(-3) // 'expired 0:03 ago'
 * ```
 */
export function formatCountdown(seconds: number): string {
  const whole = Math.abs(Math.trunc(seconds))
  const text = `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`
  return seconds < 0 ? `expired ${text} ago` : text
}

/** The lines a panel shows for a refresher at `nowMs` (the server's clock). */
export function statusLines(
  record: TokenRecord,
  ipBound: boolean,
  refreshCount: number,
  nowMs: number,
): [string, string][] {
  return [
    ['token', ipBound ? record.token_ip : record.token],
    ['expires', `${record.expires} (in ${formatCountdown(record.expires - nowMs / 1000)})`],
    ['refreshes', String(refreshCount)],
    ['client IP', record.client_ip],
  ]
}

/**
 * Renders a refresher's state into a `<dl>` once a second, plus a line for the player's
 * state and the last error. Returns a function that shows a message in that line.
 *
 * @example
 * ```ts
 * const say = showStatus(section.querySelector('dl')!, refresher, false)
 * say('playing', false)
 * ```
 */
export function showStatus(
  list: HTMLElement,
  refresher: TokenRefresher,
  ipBound: boolean,
): (message: string, isError: boolean) => void {
  let state: [string, boolean] = ['starting', false]
  const render = () => {
    const lines = statusLines(
      refresher.record,
      ipBound,
      refresher.refreshCount,
      refresher.serverNow(),
    )
    list.replaceChildren(
      ...[...lines, ['player', state[0]] as [string, string]].flatMap(([term, value], index) => {
        const dt = document.createElement('dt')
        const dd = document.createElement('dd')
        dt.textContent = term
        dd.textContent = value
        if (index === lines.length && state[1]) dd.className = 'error'
        return [dt, dd]
      }),
    )
  }
  render()
  setInterval(render, 1000)
  refresher.addEventListener('tokenrefreshed', render)
  refresher.addEventListener('error', (event) => {
    state = [`token refresh failed: ${String((event as CustomEvent).detail)}`, true]
    render()
  })
  return (message, isError) => {
    state = [message, isError]
    render()
  }
}
