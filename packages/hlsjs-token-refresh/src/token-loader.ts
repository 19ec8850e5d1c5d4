import type { TokenRefresher } from '@proj/token-refresh'
import type { HlsConfig, Loader, LoaderContext } from 'hls.js'
import Hls from 'hls.js'

/** The part of hls.js's loaders (XhrLoader, FetchLoader: both extend BaseLoader) used here. */
interface BaseLoader extends Loader<LoaderContext> {
  loadInternal(): void
  abortInternal(): void
}
type BaseLoaderClass = new (config: HlsConfig) => BaseLoader

/**
 * Builds a `config.loader` class that wraps hls.js's default loader, so the master manifest,
 * media/audio/subtitle playlists, fragments, init segments AND AES keys all pass through it.
 *
 * The rewrite happens in `loadInternal`, not `load`: hls.js's own retries (timeouts, 5xx, and
 * the 403/410 recovery) call `loadInternal` again after a delay without going through `load`, so
 * a loader that rewrites in `load` would retry with the pair it started with. When the token is
 * inside its lead window the attempt first waits (bounded) for the refresh.
 *
 * @example
 * ```ts
 * const hls = new Hls({ loader: tokenLoader(refresher) })
 * ```
 */
export const tokenLoader = (
  refresher: TokenRefresher,
  Base: BaseLoaderClass = Hls.DefaultConfig.loader as unknown as BaseLoaderClass,
): typeof Hls.DefaultConfig.loader =>
  class TokenLoader extends Base {
    // Bumped by every abort/retry/destroy, so a rewrite that finishes late is dropped.
    #attempt = 0

    override loadInternal(): void {
      const context = this.context
      if (!context) return
      const attempt = ++this.#attempt
      refresher.prepare(context.url).then((url) => {
        if (attempt !== this.#attempt || this.context !== context) return
        context.url = url
        super.loadInternal()
      })
    }

    override abortInternal(): void {
      this.#attempt++
      super.abortInternal()
    }
  } as unknown as typeof Hls.DefaultConfig.loader
