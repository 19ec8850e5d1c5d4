import { createTokenRefresh, type TokenRefreshOptions } from '@proj/dashjs-token-refresh'
import * as dashjs from 'dashjs'
import type { DemoConfig } from './config.ts'
import {
  type PlayerState,
  type Say,
  section,
  showHooked,
  showStatic,
  watchElement,
} from './page.ts'

/** What the page gives the dash.js player: its settings, its state, how it gets tokens. */
export interface DashjsPlayerContext {
  config: DemoConfig
  state: PlayerState
  tokenOptions: TokenRefreshOptions
  /** refresh=0: the one URL played. */
  firstUrl: () => Promise<string>
}

/** The code and message of a dash.js `error` event (dash.js-shaped, or a string for old kinds). */
const describeError = (event: unknown): string => {
  const { error } = event as { error?: { code?: number; message?: string } | string }
  if (typeof error === 'string') return `dash.js error ${error}`
  return `dash.js error ${error?.code ?? '?'}: ${error?.message ?? ''}`.trim()
}

/**
 * dash.js with `@proj/dashjs-token-refresh` (MSE playback; DASH only). dash.js has no fatal flag:
 * every `error` event is a failure after its retries, and each is recorded as fatal.
 */
export async function startDashjs({ config, state, tokenOptions, firstUrl }: DashjsPlayerContext) {
  const video = section('dashjs').querySelector('video') as HTMLVideoElement
  state.video = video
  const player = dashjs.MediaPlayer().create()
  state.player = player
  const ahead = config.buffer
  player.updateSettings({
    streaming: {
      ...(ahead !== undefined && {
        buffer: {
          bufferTimeDefault: ahead,
          bufferTimeAtTopQuality: ahead,
          bufferTimeAtTopQualityLongForm: ahead,
        },
      }),
      ...(config.liveDelay !== undefined && { delay: { liveDelay: config.liveDelay } }),
    },
  })
  let say: Say
  let url: string
  if (config.refresh) {
    const refresh = await createTokenRefresh({ ...tokenOptions, dashjs })
    say = showHooked('dashjs', state, refresh.refresher, config.ipBound)
    refresh.attach(player)
    url = refresh.url
  } else {
    say = showStatic('dashjs')
    url = await firstUrl()
  }
  player.on(dashjs.MediaPlayer.events.ERROR, (event: unknown) => {
    const message = describeError(event)
    state.fatal.push(message)
    say(message, true)
  })
  watchElement(video, say)
  player.initialize(video, url, true)
}
