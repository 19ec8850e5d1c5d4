import type { TokenRefresher } from '@proj/token-refresh'

/** The request options VHS passes through its `onRequest` hooks. */
export interface VhsRequestOptions {
  uri: string
  [option: string]: unknown
}

/** The XMLHttpRequest VHS hands back, with the fields VHS adds. */
export interface VhsRequest {
  status: number
  responseURL: string
  /** The URL VHS sent, after the request hooks (set by VHS; `responseURL` is empty on errors). */
  uri?: string
  aborted?: boolean
  /** VHS's own timeout ended it (VHS also sets `aborted` then). */
  timedout?: boolean
  abort?(): void
}

type VhsCallback = (error: unknown, request: VhsRequest) => void
type RequestHook = (options: VhsRequestOptions) => VhsRequestOptions
type ResponseHook = (request: VhsRequest) => void

/** A VHS xhr function (`player.tech(true).vhs.xhr`), with its per-player hook registry. */
export interface VhsXhr {
  (options: VhsRequestOptions, callback: VhsCallback): VhsRequest
  onRequest(hook: RequestHook): void
  onResponse(hook: ResponseHook): void
  offRequest(hook: RequestHook): void
  offResponse(hook: ResponseHook): void
}

/**
 * Told of every answer to VHS's requests (the URL really sent, its status), and with `final` of
 * each 403/410 handed to VHS in the end (no recovery could help).
 */
export type ResponseObserver = (url: string, status: number, final: boolean) => void

/**
 * Connects one VHS xhr to the refresher returned by `current()` (undefined until it exists).
 *
 * - `onRequest` moves every playlist, segment, init segment and key URL onto the current pair,
 *   per sending; the hook is synchronous, so it never waits: the lead-time timer and the
 *   background refresh it starts keep a fresh pair ready before it is needed.
 * - The returned `xhr` (a Proxy of the original, so its hook registry is shared) makes each
 *   request one of the refresher's attempts (`refresher.attempt`) and tells it how each sending
 *   ended (VHS's own timeout, 1.5 target durations, counts as the CDN hanging): another CDN
 *   takes the CDN's failures at once (several CDNs: a fresh token refused, a 5xx, no answer, no
 *   status within the attempt's bound, when the hung sending is aborted); a refused token is
 *   held back from VHS, waits for the new pair and is sent again, at most twice. VHS would
 *   otherwise wait its retry delay, exclude the rendition for a minute, or loop on the last one.
 * - `observe`, when given, hears of every answer, and of each 403/410 handed to VHS in the end.
 *
 * @example
 * ```ts
 * const vhs = player.tech(true).vhs
 * const { xhr, remove } = installVhsHooks(vhs.xhr, () => refresher)
 * vhs.xhr = xhr
 * ```
 */
export function installVhsHooks(
  xhr: VhsXhr,
  current: () => TokenRefresher | undefined,
  observe?: ResponseObserver,
): { xhr: VhsXhr; remove: () => void } {
  const onRequest: RequestHook = (options) => {
    const refresher = current()
    if (refresher) options.uri = refresher.rewrite(options.uri)
    return options
  }
  const onResponse: ResponseHook = (request) =>
    observe?.(request.responseURL, request.status, false)
  xhr.onRequest(onRequest)
  xhr.onResponse(onResponse)

  const recovering = new Proxy(xhr, {
    apply(target, self, [options, callback]: [VhsRequestOptions, VhsCallback]) {
      const refresher = current()
      if (!refresher) return Reflect.apply(target, self, [options, callback])
      const attempt = refresher.attempt(options.uri)
      let request: VhsRequest
      /** The current sending: one left for another CDN is ignored when it answers late. */
      let sending = 0
      const send = (url: string) => {
        const sent = sending + 1
        options.uri = url
        const next = Reflect.apply(target, self, [
          options,
          (error: unknown, response: VhsRequest) => {
            if (sent !== sending) return
            // an abort of VHS's own never calls back; its timeout (aborted too) is the CDN's
            const outcome = response.timedout ? 'timeout' : response.status
            const then =
              response.aborted && !response.timedout ? undefined : attempt.failed(outcome)
            if (then === 'resend') {
              try {
                return send(attempt.send())
              } catch (sendError) {
                return callback(sendError, response)
              }
            }
            if (then === 'refresh')
              return void attempt
                .prepare()
                .then((fresh) => {
                  if (!request.aborted) send(fresh)
                })
                // the retry could not be sent: VHS gets the failure it would have had, never silence
                .catch((sendError: unknown) => callback(sendError, response))
            if (then === 'fail') observe?.(response.responseURL, response.status, true)
            callback(error, response)
          },
        ]) as VhsRequest
        sending = sent
        request = next
        // No status in time (an XMLHttpRequest's status stays 0 until its headers are in): the
        // CDN hangs. The sending is left running when no other CDN can take it.
        attempt.watch(
          () => !!next.aborted || next.status !== 0,
          () => {
            try {
              send(attempt.send())
            } catch {
              return // the hung sending stays VHS's: its own timeout ends it
            }
            next.abort?.()
          },
        )
      }
      send(attempt.send())
      // VHS keeps the returned object to abort it and read the response: follow the retry.
      return new Proxy({} as VhsRequest, {
        get: (_, key) => {
          const value: unknown = Reflect.get(request, key)
          return typeof value === 'function' ? value.bind(request) : value
        },
        set: (_, key, value) => Reflect.set(request, key, value),
      })
    },
  })
  return {
    xhr: recovering,
    remove: () => {
      xhr.offRequest(onRequest)
      xhr.offResponse(onResponse)
    },
  }
}
