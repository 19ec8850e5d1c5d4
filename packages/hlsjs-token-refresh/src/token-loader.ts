import type { TokenRefresher } from '@proj/token-refresh'
import type { HlsConfig, Loader, LoaderCallbacks, LoaderContext, LoaderStats } from 'hls.js'
import Hls from 'hls.js'

/** The part of hls.js's loaders (XhrLoader, FetchLoader: both extend BaseLoader) used here. */
interface BaseLoader extends Loader<LoaderContext> {
  loadInternal(): void
  abortInternal(): void
  callbacks: LoaderCallbacks<LoaderContext> | null
  stats: LoaderStats
}
type BaseLoaderClass = new (config: HlsConfig) => BaseLoader

/**
 * Builds a `config.loader` class that wraps hls.js's default loader, so the master manifest,
 * media/audio/subtitle playlists, fragments, init segments AND AES keys all pass through it.
 *
 * The rewrite happens in `loadInternal`, not `load`: hls.js's own retries (timeouts, 5xx, and
 * the 403/410 recovery) call `loadInternal` again after a delay without going through `load`, so
 * a loader that rewrites in `load` would retry with the pair it started with. When the token is
 * inside its lead window the attempt first waits (bounded) for the refresh. Works on hls.js's
 * `XhrLoader` and `FetchLoader` (both have `loadInternal` since hls.js 1.7).
 *
 * @example
 * ```ts
 * const hls = new Hls({ loader: tokenLoader(refresher) })
 * ```
 */
export function tokenLoader(
  refresher: TokenRefresher,
  Base: BaseLoaderClass = Hls.DefaultConfig.loader as unknown as BaseLoaderClass,
): typeof Hls.DefaultConfig.loader {
  return class TokenLoader extends Base {
    // Bumped by every abort/retry/destroy, so a rewrite that finishes late is dropped.
    #attempt = 0

    override loadInternal(): void {
      const context = this.context
      if (!context) return
      // a rewrite still waiting from an earlier attempt is obsolete from here on
      const attempt = ++this.#attempt
      // As hls.js does for its own async hooks (xhrSetup): a failure fails the request, instead
      // of leaving it neither loaded nor timed out.
      const fail = (error: unknown) =>
        this.callbacks?.onError({ code: 0, text: String(error) }, context, null, this.stats)
      // The common case, a token outside its lead window: rewrite and send in this same task.
      // A promise hop would hold every request until the task that asked for it ends (up to
      // milliseconds while hls.js parses; BENCHMARKS.md, per-request overhead).
      if (!refresher.stale) {
        context.url = refresher.rewrite(context.url)
        try {
          super.loadInternal()
        } catch (error) {
          fail(error)
        }
        return
      }
      const current = () => attempt === this.#attempt && this.context === context
      refresher
        .prepare(context.url)
        .then((url) => {
          if (!current()) return
          context.url = url
          super.loadInternal()
        })
        .catch((error: unknown) => {
          if (current()) fail(error)
        })
    }

    override abortInternal(): void {
      this.#attempt++
      super.abortInternal()
    }
  } as unknown as typeof Hls.DefaultConfig.loader
}
