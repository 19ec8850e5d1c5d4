// What every page of the fixture shares: its settings from the query string, and its state where
// the e2e probe reads it (`window.demo[player]`, the contract of e2e/support/demo.ts).

/** The query of a fixture page: `?token=<token endpoint>&video=…&expire=…&lead=…`. */
export interface PageSettings {
  /** The full token request: endpoint, video, VOD, lifetime. */
  tokenRequest: string
  refreshLeadSeconds: number
}

/** Reads the page's settings; every one is required (the spec passes them all). */
export function pageSettings(search: string = location.search): PageSettings {
  const query = new URLSearchParams(search)
  const endpoint = query.get('token')
  if (!endpoint) throw new Error('adoption page: no ?token=<token endpoint>')
  const request = new URL(endpoint)
  request.search = new URLSearchParams({
    video: query.get('video') ?? 'demo',
    type: 'vod',
    expire: query.get('expire') ?? '20',
  }).toString()
  return { tokenRequest: request.href, refreshLeadSeconds: Number(query.get('lead') ?? 6) }
}

/** The state the e2e probe reads. */
export interface PlayerState {
  video?: HTMLVideoElement
  refresher?: { refreshCount: number; record: { token: string } }
  mode?: string
  errors: string[]
  fatal: string[]
}

/** Publishes `state` as `window.demo[player]`. */
export function exposeState(player: string, state: PlayerState): PlayerState {
  const page = window as unknown as { demo?: Record<string, PlayerState> }
  page.demo = { ...page.demo, [player]: state }
  return state
}
