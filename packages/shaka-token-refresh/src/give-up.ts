import { isTokenRefusal, type TokenRefresher, TokenRejectedError } from '@proj/token-refresh'
import type shaka from 'shaka-player'

// shaka.util.Error.Code.BAD_HTTP_STATUS; its data is [uri, status, …]
const BAD_HTTP_STATUS = 1001

/** The part of a Shaka Player the give-up configures. */
export type ConfigurablePlayer = Pick<shaka.Player, 'configure' | 'getConfiguration'>

/**
 * Makes Shaka stop with its own fatal error once `refresher` gives up on a CDN that refuses
 * every token ({@link TokenRejectedError}, reported through `onError` by the refresher). On a
 * live stream Shaka would otherwise never stop: a failed playlist update is downgraded to a
 * recoverable error and retried after 0.1 s, and its default streaming `failureCallback` retries
 * refused segments every second. From the give-up on, a failed playlist update is fatal
 * (`raiseFatalErrorOnManifestUpdateRequestFailure`) and a refused segment of this video is no
 * longer retried (the page's own `failureCallback` still sees every other error). Returns the
 * function that stops watching.
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
  const onError = (event: Event) => {
    if (!((event as CustomEvent<unknown>).detail instanceof TokenRejectedError)) return
    const pageCallback = player.getConfiguration().streaming.failureCallback
    const failureCallback = (error: shaka.util.Error) => {
      const [uri, status] = error.code === BAD_HTTP_STATUS ? error.data : []
      const refused = isTokenRefusal(Number(status)) && refresher.owns(String(uri))
      if (!refused) pageCallback(error)
    }
    player.configure({
      manifest: { raiseFatalErrorOnManifestUpdateRequestFailure: true },
      streaming: { failureCallback },
    })
  }
  refresher.addEventListener('error', onError)
  return () => refresher.removeEventListener('error', onError)
}
