import type { TokenRefresher } from '@proj/token-refresh'
import type {
  HlsConfig,
  Loader,
  LoaderCallbacks,
  LoaderConfiguration,
  LoaderContext,
  LoaderStats,
} from 'hls.js'
import { type AttemptFailure, CdnAttempts, localError } from './cdn-attempts.ts'

/** An hls.js loader class: `config.loader`, `config.pLoader` (playlists) or `config.fLoader` (fragments). */
export type LoaderClass<C extends LoaderContext = LoaderContext> = new (
  config: HlsConfig,
) => Loader<C>

/** The part of hls.js's loaders (XhrLoader, FetchLoader: both extend BaseLoader) used here. */
interface BaseLoader extends Loader<LoaderContext> {
  loadInternal(): void
  abortInternal(): void
  callbacks: LoaderCallbacks<LoaderContext> | null
  stats: LoaderStats
}
type BaseLoaderClass = new (config: HlsConfig) => BaseLoader

/** Whether `Base` is (or extends) one of hls.js's own loaders, which send every attempt from `loadInternal`. */
function hasLoadInternal(Base: LoaderClass): Base is LoaderClass & BaseLoaderClass {
  const prototype = Base.prototype as Partial<BaseLoader> | undefined
  return typeof prototype?.loadInternal === 'function'
}

/**
 * Builds a loader class that moves every request of the refresher's video onto the current
 * `{token}/{expires}` pair, then lets `Base` send it. `Base` is `Hls.DefaultConfig.loader`, or a
 * page's own `loader`/`pLoader`/`fLoader` (hls.js prefers `pLoader`/`fLoader` over `loader`, so a
 * page's own one must be wrapped too, or its requests would bypass the token).
 *
 * hls.js's loaders (`XhrLoader`, `FetchLoader` and their subclasses) are extended, with the
 * rewrite in `loadInternal`, not `load`: hls.js's own retries (timeouts, 5xx, and the 403/410
 * recovery) call `loadInternal` again after a delay without going through `load`, so a loader
 * that rewrote in `load` would retry with the pair it started with. Any other class (a loader
 * written from scratch, e.g. a P2P one) is wrapped around its `load`: each load leaves on the
 * current pair, and retries it makes inside one load are its own business. When the token is
 * inside its lead window the request first waits (bounded) for the refresh.
 *
 * With several CDNs (a record with `cdns`), each attempt that gets no first byte within
 * `refresher.cdnTimeoutMs`, or an answer `refresher.cdnFailureOf` blames on its CDN (5xx, no
 * answer, 403/410 for a fresh token), is sent again at once on the next CDN with that CDN's
 * token: hls.js sees neither the failure nor a retry delay.
 *
 * @throws TypeError when `Base` is not a class.
 * @example
 * ```ts
 * const hls = new Hls({ loader: tokenLoader(refresher, Hls.DefaultConfig.loader) })
 * ```
 */
export function tokenLoader<C extends LoaderContext>(
  refresher: TokenRefresher,
  Base: LoaderClass<C>,
): LoaderClass<C> {
  if (typeof Base !== 'function')
    throw new TypeError(`tokenLoader: ${String(Base)} is not a loader class`)
  // the wrappers only read and set `context.url`, common to every context type
  const Any = Base as unknown as LoaderClass
  const Wrapped = hasLoadInternal(Any)
    ? perAttemptLoader(refresher, Any)
    : perLoadLoader(refresher, Any)
  return Wrapped as unknown as LoaderClass<C>
}

/** hls.js's own loaders: the rewrite runs before every attempt (see {@link tokenLoader}). */
function perAttemptLoader(refresher: TokenRefresher, Base: BaseLoaderClass): BaseLoaderClass {
  return class TokenLoader extends Base {
    // Bumped by every abort/retry/destroy, so a rewrite that finishes late is dropped.
    #attempt = 0
    readonly #cdn = new CdnAttempts(refresher)

    override load(
      context: LoaderContext,
      config: LoaderConfiguration,
      callbacks: LoaderCallbacks<LoaderContext>,
    ): void {
      const failsOver = (url: string, code: AttemptFailure) =>
        this.#cdn.failsOver(this.#attempt, url, code)
      const reporting = this.#cdn.callbacks(reportingSentUrl(callbacks), (failed) => {
        if (!failsOver(failed.url, failed.code)) return false
        // hls.js aborted a timed-out attempt before telling: send it again as #watch does
        if (failed.code === 'timeout') this.#sendAgainSoon(context)
        else this.loadInternal()
        return true
      })
      super.load(
        context,
        this.#cdn.config(config, failsOver, () => context.url),
        reporting,
      )
    }

    override loadInternal(): void {
      const context = this.context
      if (!context) return
      // a rewrite still waiting from an earlier attempt is obsolete from here on
      const attempt = ++this.#attempt
      // As hls.js does for its own async hooks (xhrSetup): a failure fails the request, instead
      // of leaving it neither loaded nor timed out.
      const fail = (error: unknown) =>
        this.callbacks?.onError(localError(error), context, null, this.stats)
      // The common case, a token outside its lead window: rewrite and send in this same task.
      // A promise hop would hold every request until the task that asked for it ends (up to
      // milliseconds while hls.js parses; BENCHMARKS.md, per-request overhead).
      if (!refresher.stale) {
        context.url = refresher.rewrite(context.url)
        try {
          super.loadInternal()
          this.#watch(context)
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
          this.#watch(context)
        })
        .catch((error: unknown) => {
          if (current()) fail(error)
        })
    }

    override abortInternal(): void {
      this.#attempt++
      this.#cdn.clear()
      super.abortInternal()
    }

    /** The attempt just sent: with several CDNs, no first byte in time sends it to the next. */
    #watch(context: LoaderContext): void {
      this.#cdn.watch(
        context.url,
        () => this.stats.loading.first > 0,
        () => {
          this.abortInternal()
          this.#sendAgainSoon(context)
        },
      )
    }

    /** Sends an aborted attempt again, in a task of its own (unless another one began meanwhile). */
    #sendAgainSoon(context: LoaderContext): void {
      const aborted = this.#attempt
      // FetchLoader settles the aborted fetch asynchronously, and would take the new attempt
      // for the aborted one
      setTimeout(() => {
        if (aborted === this.#attempt && this.context === context) this.loadInternal()
      }, 0)
    }
  }
}

/** A loader that is not one of hls.js's: wrapped around its `load` (see {@link tokenLoader}). */
function perLoadLoader(refresher: TokenRefresher, Base: LoaderClass): LoaderClass {
  return class TokenLoadWrapper implements Loader<LoaderContext> {
    readonly #inner: Loader<LoaderContext>
    // Bumped by every load/abort/destroy, so a rewrite that finishes late is dropped.
    #attempt = 0
    readonly #cdn = new CdnAttempts(refresher)

    constructor(config: HlsConfig) {
      this.#inner = new Base(config)
    }

    get context(): LoaderContext | null {
      return this.#inner.context
    }

    get stats(): LoaderStats {
      return this.#inner.stats
    }

    load(
      context: LoaderContext,
      config: LoaderConfiguration,
      callbacks: LoaderCallbacks<LoaderContext>,
    ): void {
      const attempt = ++this.#attempt
      const again = () => this.load(context, config, callbacks)
      // an attempt given up (no first byte in time) may still answer: a page's loader need not
      // silence an aborted load, and its late answer would reach hls.js besides the new one's
      const reporting = this.#cdn.callbacks(
        reportingSentUrl(callbacks),
        (failed) => {
          if (!this.#cdn.failsOver(attempt, failed.url, failed.code)) return false
          again()
          return true
        },
        () => attempt === this.#attempt,
      )
      const send = () => {
        try {
          this.#inner.load(context, config, reporting)
          this.#cdn.watch(
            context.url,
            () => this.#inner.stats.loading.first > 0,
            () => {
              this.abort()
              again()
            },
          )
        } catch (error) {
          reporting.onError(localError(error), context, null, this.stats)
        }
      }
      if (!refresher.stale) {
        context.url = refresher.rewrite(context.url)
        send()
        return
      }
      void refresher.prepare(context.url).then((url) => {
        if (attempt !== this.#attempt) return
        context.url = url
        send()
      })
    }

    abort(): void {
      this.#attempt++
      this.#cdn.clear()
      this.#inner.abort()
    }

    destroy(): void {
      this.#attempt++
      this.#cdn.clear()
      this.#inner.destroy()
    }

    getCacheAge(): number | null {
      return this.#inner.getCacheAge?.() ?? null
    }

    getResponseHeader(name: string): string | null {
      return this.#inner.getResponseHeader?.(name) ?? null
    }
  }
}

/**
 * `callbacks` whose `onError` also gives the URL actually sent, as `url`. hls.js builds a failed
 * fragment's or key's error from the URL in the playlist (`{ url: frag.url, ...error }`), i.e.
 * the pair the playlist was fetched with, not the one the request left with: the recovery
 * (`refresher.recover(response.url)`) would take every refusal of the current token for one of
 * an older pair, retry it, and never count it towards giving up.
 */
function reportingSentUrl(
  callbacks: LoaderCallbacks<LoaderContext>,
): LoaderCallbacks<LoaderContext> {
  return {
    ...callbacks,
    onError: (error, context, networkDetails, stats) => {
      const sent = { ...error, url: context.url }
      callbacks.onError(sent, context, networkDetails, stats)
    },
  }
}
