import { isTokenRejection, MAX_RECOVERY_RETRIES, type TokenRefresher } from '@proj/token-refresh'

/** The request options VHS passes through its `onRequest` hooks. */
export interface VhsRequestOptions {
  uri: string
  [option: string]: unknown
}

/** The XMLHttpRequest VHS hands back, with the fields VHS adds. */
export interface VhsRequest {
  status: number
  responseURL: string
  aborted?: boolean
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
 *   per attempt; the hook is synchronous, so it never waits: the lead-time timer and the
 *   background refresh it starts keep a fresh pair ready before it is needed.
 * - `onResponse` starts the refresh as soon as a 403/410 comes back.
 * - The returned `xhr` (a Proxy of the original, so its hook registry is shared) holds such an
 *   answer back from VHS, waits for the new pair and sends the request again, at most twice.
 *   VHS would otherwise exclude the rendition for a minute, or loop on the last one.
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
  const onResponse: ResponseHook = (request) => {
    // responseURL: the URL that was really sent, after the onRequest rewrite
    if (isTokenRejection(request.status)) current()?.recover(request.responseURL)
    observe?.(request.responseURL, request.status, false)
  }
  xhr.onRequest(onRequest)
  xhr.onResponse(onResponse)

  const recovering = new Proxy(xhr, {
    apply(target, self, [options, callback]: [VhsRequestOptions, VhsCallback]) {
      let request: VhsRequest
      let retries = 0
      const send = () => {
        request = Reflect.apply(target, self, [
          options,
          (error: unknown, response: VhsRequest) => {
            const refresher = current()
            const url = response.responseURL
            if (
              refresher &&
              retries++ < MAX_RECOVERY_RETRIES &&
              !response.aborted &&
              isTokenRejection(response.status) &&
              refresher.recover(url)
            ) {
              refresher
                .prepare(url)
                .then(() => {
                  if (!request.aborted) send()
                })
                // the retry could not be sent: VHS gets the failure it would have had, never silence
                .catch((sendError: unknown) => callback(sendError, response))
              return
            }
            if (isTokenRejection(response.status) && !response.aborted)
              observe?.(response.responseURL, response.status, true)
            callback(error, response)
          },
        ]) as VhsRequest
      }
      send()
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
