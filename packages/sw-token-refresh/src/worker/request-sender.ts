import type { CdnAttempt } from '@proj/token-refresh'

/** What a sending that went to the CDN and back needs from the rewriter. */
export interface SendingHooks {
  /**
   * The CDN refused the token of `url` (the last sending) with `status` and the attempt says a
   * new one can help: whether the page's recovery brought one (then the request goes again).
   */
  recovered(url: string, status: number): Promise<boolean>
}

/**
 * How the service worker sends a request of a video, keeping the element's method, headers
 * (`Range`), credentials mode, redirect mode and abort signal:
 *
 * - A `<video>`'s cross-origin requests are `no-cors`, whose answers are opaque (status 0): sent
 *   in `cors` mode without cookies so the worker can see a 403/410 (tokens carry the
 *   authorisation; `Access-Control-Allow-Origin: *` forbids cookies). A CDN that refuses CORS
 *   falls back to the request's own mode after one failure (then no recovery).
 * - Each request is one of the core's attempts ({@link CdnAttempt}), the same one every player
 *   adapter uses: a sending that fails on its CDN (with several CDNs: a fresh token refused, a
 *   5xx, no answer, no first byte in time) goes at once to the next CDN, with that CDN's token;
 *   a refused token is recovered by the page, and the request sent again once.
 *
 * @example
 * ```ts
 * const sender = new RequestSender(fetch)
 * const response = await sender.attempt(request, slots.attempt(slot, request.url), hooks)
 * ```
 */
export class RequestSender {
  readonly #fetch: typeof fetch
  /**
   * Origins by whether they answer in cors mode: `false` (refused CORS at the first request) keeps
   * their requests in their own mode; `true` (answered once) never turns `false`.
   */
  readonly #cors = new Map<string, boolean>()

  constructor(fetch: typeof globalThis.fetch) {
    this.#fetch = fetch
  }

  /** Sends `request` as `attempt` says, sending after sending, until it is done. */
  async attempt(request: Request, attempt: CdnAttempt, hooks: SendingHooks): Promise<Response> {
    for (let url = attempt.send(); ; url = attempt.send()) {
      let response: Response
      try {
        response = await this.#send(request, url, attempt)
      } catch (error) {
        // no answer (or none in time, which the attempt already judged): the CDN's, when it says
        if (request.signal.aborted || attempt.failed(0) !== 'resend') throw error
        continue
      }
      // opaque answers (a CDN without CORS) say nothing about the CDN or the token
      const next = response.type === 'opaque' ? undefined : attempt.failed(response.status)
      const again =
        next === 'resend' ||
        (next === 'refresh' && (await hooks.recovered(attempt.url, response.status)))
      if (!again) return response
      // the failed answer is dropped: let its connection go instead of leaving the body unread
      response.body?.cancel().catch(() => undefined)
    }
  }

  /** Sends `request` as it is (not a request the worker moves). */
  forward(request: Request): Promise<Response> {
    return this.#fetch(request)
  }

  /** Whether a CDN serves `url` again: a `HEAD` in `cors` mode, not cached, until `signal`. */
  async probe(url: string, signal: AbortSignal): Promise<boolean> {
    return (await this.#fetch(url, { method: 'HEAD', mode: 'cors', cache: 'no-store', signal })).ok
  }

  /**
   * Sends `request` to `url` (see {@link RequestSender}: its mode, or `cors`), its first byte
   * bounded by the attempt (several CDNs): a sending the attempt gives to another CDN is aborted
   * (a TimeoutError), as is one the player aborts. A cors failure of an origin that has CORS is
   * thrown when `attempt` gives the request to another CDN; with none left (or one CDN) the
   * request goes again in its own mode: the element gets what its own request would have got
   * (the attempt keeps its answer for {@link attempt}'s catch).
   */
  async #send(request: Request, url: string, attempt: CdnAttempt): Promise<Response> {
    // aborted while the page recovered its token: its listener below would never be called
    request.signal.throwIfAborted()
    const controller = new AbortController()
    const { signal } = controller
    const follow = () => controller.abort(request.signal.reason)
    request.signal.addEventListener('abort', follow, { once: true })
    // fetch resolves with the headers: until then, no first byte
    attempt.watch(
      () => false,
      () => controller.abort(new DOMException('no first byte in time', 'TimeoutError')),
    )
    const origin = new URL(url).origin
    const own: RequestInit = {
      method: request.method,
      headers: request.headers,
      mode: request.mode === 'navigate' ? 'same-origin' : request.mode,
      credentials: request.credentials,
      redirect: request.redirect,
      signal,
      ...(request.cache === 'only-if-cached' ? {} : { cache: request.cache }),
    }
    try {
      if (own.mode !== 'no-cors' || this.#cors.get(origin) === false)
        return await this.#fetch(url, own)
      try {
        // ACAO: * (what CDNs send) does not allow cookies; tokens carry the authorisation.
        const response = await this.#fetch(url, {
          ...own,
          mode: 'cors',
          credentials: 'same-origin',
        })
        this.#cors.set(origin, true)
        return response
      } catch (error) {
        // several CDNs: a CDN with CORS that answers without it failed (an error page), the
        // next one takes the request; on the last one (nothing left to fail over to) the
        // element's own request is the better answer than a network error. One CDN (no
        // timeout): the attempt is not asked here, its answer is for the response below.
        if (
          signal.aborted ||
          (attempt.timeoutMs !== undefined &&
            this.#cors.get(origin) &&
            attempt.failed(0) === 'resend')
        )
          throw error
        const response = await this.#fetch(url, own)
        // one failure of a CDN that has CORS (a connection lost, an error page without its
        // headers) must not leave its 403/410 unseen for the worker's life
        this.#cors.set(origin, !!this.#cors.get(origin))
        return response
      }
    } finally {
      attempt.end()
      request.signal.removeEventListener('abort', follow)
    }
  }
}
