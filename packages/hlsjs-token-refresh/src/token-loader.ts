import type { CdnAttempt, TokenRefresher } from '@proj/token-refresh'
import type {
  HlsConfig,
  Loader,
  LoaderCallbacks,
  LoaderConfiguration,
  LoaderContext,
  LoaderStats,
} from 'hls.js'
import { attemptCallbacks, attemptConfig, localError } from './loader-attempt.ts'

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
 * Each request is one of the refresher's attempts (`refresher.attempt`): with several CDNs
 * (a record with `cdns`), a sending that gets no first byte within the attempt's bound, or an
 * answer that is its CDN's failure (5xx, no answer, 403/410 for a fresh token), is sent again at
 * once on the next CDN with that CDN's token: hls.js sees neither the failure nor a retry delay.
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

/** hls.js's own loaders: the rewrite runs before every sending (see {@link tokenLoader}). */
function perAttemptLoader(refresher: TokenRefresher, Base: BaseLoaderClass): BaseLoaderClass {
  return class TokenLoader extends Base {
    // Bumped by every abort/retry/destroy, so a rewrite that finishes late is dropped.
    #sending = 0
    /** The request of the current `load`. */
    #attempt: CdnAttempt | undefined

    override load(
      context: LoaderContext,
      config: LoaderConfiguration,
      callbacks: LoaderCallbacks<LoaderContext>,
    ): void {
      const attempt = refresher.attempt(context.url)
      this.#attempt = attempt
      // hls.js aborted a timed-out sending before telling: sent again as the watch does
      const resend = (timedOut: boolean) =>
        timedOut ? this.#sendAgainSoon(context) : this.loadInternal()
      const told = attemptCallbacks(attempt, reportingSentUrl(callbacks), resend)
      super.load(context, attemptConfig(attempt, config), told)
    }

    override loadInternal(): void {
      const context = this.context
      const attempt = this.#attempt
      if (!context || !attempt) return
      // a rewrite still waiting from an earlier sending is obsolete from here on
      const sending = ++this.#sending
      // As hls.js does for its own async hooks (xhrSetup): a failure fails the request, instead
      // of leaving it neither loaded nor timed out.
      const fail = (error: unknown) =>
        this.callbacks?.onError(localError(error), context, null, this.stats)
      const send = (url: string) => {
        context.url = url
        super.loadInternal()
        // several CDNs: no first byte in time sends it to the next
        attempt.watch(
          () => this.stats.loading.first > 0,
          () => {
            this.abortInternal()
            this.#sendAgainSoon(context)
          },
        )
      }
      // The common case, a token outside its lead window: rewrite and send in this same task.
      // A promise hop would hold every request until the task that asked for it ends (up to
      // milliseconds while hls.js parses; BENCHMARKS.md, per-request overhead).
      if (!refresher.stale) {
        try {
          send(attempt.send())
        } catch (error) {
          fail(error)
        }
        return
      }
      const current = () => sending === this.#sending && this.context === context
      attempt
        .prepare()
        .then((url) => current() && send(url))
        .catch((error: unknown) => {
          if (current()) fail(error)
        })
    }

    override abortInternal(): void {
      this.#sending++
      this.#attempt?.end()
      super.abortInternal()
    }

    /** Sends an aborted sending again, in a task of its own (unless another one began meanwhile). */
    #sendAgainSoon(context: LoaderContext): void {
      const aborted = this.#sending
      // FetchLoader settles the aborted fetch asynchronously, and would take the new sending
      // for the aborted one
      setTimeout(() => {
        if (aborted === this.#sending && this.context === context) this.loadInternal()
      }, 0)
    }
  }
}

/** A loader that is not one of hls.js's: wrapped around its `load` (see {@link tokenLoader}). */
function perLoadLoader(refresher: TokenRefresher, Base: LoaderClass): LoaderClass {
  return class TokenLoadWrapper implements Loader<LoaderContext> {
    readonly #inner: Loader<LoaderContext>
    // Bumped by every load/abort/destroy, so a rewrite that finishes late is dropped.
    #sending = 0
    #attempt: CdnAttempt | undefined

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
      const attempt = refresher.attempt(context.url)
      this.#attempt = attempt
      this.#send(attempt, context, config, reportingSentUrl(callbacks))
    }

    /** One sending of `attempt`, and the next one when another CDN takes its failure. */
    #send(
      attempt: CdnAttempt,
      context: LoaderContext,
      config: LoaderConfiguration,
      callbacks: LoaderCallbacks<LoaderContext>,
    ): void {
      const sending = ++this.#sending
      const again = () => this.#send(attempt, context, config, callbacks)
      // a sending given up (no first byte in time) may still answer: a page's loader need not
      // silence an aborted load, and its late answer would reach hls.js besides the new one's
      const told = attemptCallbacks(attempt, callbacks, again, () => sending === this.#sending)
      const send = (url: string) => {
        context.url = url
        try {
          this.#inner.load(context, config, told)
          attempt.watch(
            () => this.#inner.stats.loading.first > 0,
            () => {
              this.abort()
              again()
            },
          )
        } catch (error) {
          told.onError(localError(error), context, null, this.stats)
        }
      }
      if (!refresher.stale) send(attempt.send())
      else void attempt.prepare().then((url) => sending === this.#sending && send(url))
    }

    /** Ends the current sending (its timer, its late answers). */
    #stop(): void {
      this.#sending++
      this.#attempt?.end()
    }

    abort(): void {
      this.#stop()
      this.#inner.abort()
    }

    destroy(): void {
      this.#stop()
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
