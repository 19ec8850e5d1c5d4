import {
  endsPlayback,
  isStreamRefusal,
  isTokenRefusal,
  type StreamLimitError,
  type TokenRefresher,
} from '@proj/token-refresh'
import type shaka from 'shaka-player'

// shaka.util.Error.Code.BAD_HTTP_STATUS; its data is [uri, status, …]
const BAD_HTTP_STATUS = 1001

/** The part of a Shaka Player the give-up configures. */
export type ConfigurablePlayer = Pick<
  shaka.Player,
  'configure' | 'getConfiguration' | 'getNetworkingEngine'
>

/**
 * Makes Shaka stop with its own fatal error once `refresher` gives up: on a CDN that refuses
 * every token (a `TokenRejectedError`), or on the token backend's refusal of the stream (a
 * `StreamLimitError`), both reported through `onError` by the refresher. On a
 * live stream Shaka would otherwise never stop: a failed playlist update is downgraded to a
 * recoverable error and retried after 0.1 s, and its default streaming `failureCallback` retries
 * refused segments every second. From the give-up on, a failed playlist update is fatal
 * (`raiseFatalErrorOnManifestUpdateRequestFailure`) and a refused segment of this video is no
 * longer retried (the page's own `failureCallback` still sees every other error). A refused
 * stream's token is still valid: from the refusal on, every request of this video fails at once
 * in a request filter, which Shaka raises as a CRITICAL `REQUEST_FILTER_ERROR` (1006) whose
 * `data[0]` is the StreamLimitError. In both cases no other rendition is tried (`maxDisabledTime`
 * 0): every rendition of the video is refused alike. Returns
 * the function that stops watching.
 *
 * @example
 * ```ts
 * const stop = stopOnTokenRejection(player, refresher)
 * ```
 */
export function stopOnTokenRejection(
  player: ConfigurablePlayer,
  refresher: TokenRefresher,
): () => void {
  let stopRefusing: (() => void) | undefined
  const onError = (event: Event) => {
    const error = (event as CustomEvent<unknown>).detail
    if (!endsPlayback(error)) return
    if (isStreamRefusal(error)) stopRefusing = refuseVideo(player, refresher, error)
    const pageCallback = player.getConfiguration().streaming.failureCallback
    const failureCallback = (error: shaka.util.Error) => {
      const [uri, status] = error.code === BAD_HTTP_STATUS ? error.data : []
      const refused = isTokenRefusal(Number(status)) && refresher.owns(String(uri))
      if (!refused) pageCallback(error)
    }
    // maxDisabledTime 0: Shaka would otherwise take a refused segment as one rendition's
    // fault, disable it for 30 s and switch to the next, whose requests are refused too (a DASH
    // VOD of two video renditions made 25 requests in 8 s after the give-up, cycling them)
    player.configure({
      manifest: { raiseFatalErrorOnManifestUpdateRequestFailure: true },
      streaming: { failureCallback, maxDisabledTime: 0 },
    })
  }
  refresher.addEventListener('error', onError)
  return () => {
    refresher.removeEventListener('error', onError)
    stopRefusing?.()
  }
}

/**
 * Fails every later request of `refresher`'s video with `error` (Shaka makes it CRITICAL);
 * returns the function that stops (the player may load the video again, with a new refresher).
 */
function refuseVideo(
  player: ConfigurablePlayer,
  refresher: TokenRefresher,
  error: StreamLimitError,
): () => void {
  const engine = player.getNetworkingEngine()
  const refuse: shaka.extern.RequestFilter = (_type, request) => {
    if (request.uris.some((uri) => refresher.owns(uri))) throw error
  }
  engine?.registerRequestFilter(refuse)
  return () => engine?.unregisterRequestFilter(refuse)
}
