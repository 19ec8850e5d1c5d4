import {
  type CdnFailureReason,
  isTokenRejection,
  MAX_RECOVERY_RETRIES,
  type TokenRefresher,
} from '@proj/token-refresh'

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

/** The URL a request went to, also when it got no answer (status 0, empty `responseURL`). */
const sentUrl = (request: VhsRequest) => request.uri || request.responseURL

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
 * - With several CDNs, an answer that is the CDN's failure (`refresher.cdnFailureOf`: a fresh
 *   token refused, a 5xx, no answer) or no first byte within `refresher.cdnTimeoutMs` moves
 *   playback to the next CDN (`refresher.cdnFailed`) and the request leaves again at once, with
 *   that CDN's host and token: VHS's own retry would wait, exclude the rendition, and let the
 *   forward buffer run dry. With one CDN none of this runs.
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
    const refresher = current()
    // responseURL: the URL that was really sent, after the onRequest rewrite. A fresh token
    // refused is the CDN's failure: another CDN, not a new token, helps.
    if (
      isTokenRejection(request.status) &&
      !refresher?.cdnFailureOf(sentUrl(request), request.status)
    )
      refresher?.recover(request.responseURL)
    observe?.(request.responseURL, request.status, false)
  }
  xhr.onRequest(onRequest)
  xhr.onResponse(onResponse)

  const recovering = new Proxy(xhr, {
    apply(target, self, [options, callback]: [VhsRequestOptions, VhsCallback]) {
      let request: VhsRequest
      let retries = 0
      /** Re-sends to another CDN, bounded by the number of CDNs (a cooldown of 0 cannot loop). */
      let switches = 0
      /** The current attempt: an attempt left for another CDN is ignored when it answers late. */
      let attempt = 0
      let firstByteTimer: ReturnType<typeof setTimeout> | undefined
      // The request failed on its CDN: whether it can leave again at once, for the CDN now active.
      const movesCdn = (failed: VhsRequest, reason: CdnFailureReason | undefined) => {
        const refresher = current()
        if (!refresher || !reason || switches >= (refresher.record.cdns?.length ?? 1) - 1)
          return false
        if (!refresher.cdnFailed(sentUrl(failed), reason)) return false
        switches++
        return true
      }
      // No status in time (an XMLHttpRequest's status stays 0 until its headers are in): the
      // CDN hangs. The attempt is left running when no other CDN can take it.
      const onSlowFirstByte = (sent: number) => {
        const slow = request
        if (sent !== attempt || slow.aborted || slow.status) return
        if (!movesCdn(slow, 'timeout')) return
        try {
          send()
        } catch {
          return // the hung attempt stays VHS's: its own timeout ends it
        }
        slow.abort?.()
      }
      const send = () => {
        const sent = attempt + 1
        const next = Reflect.apply(target, self, [
          options,
          (error: unknown, response: VhsRequest) => {
            if (sent !== attempt) return
            clearTimeout(firstByteTimer)
            const refresher = current()
            const url = response.responseURL
            // VHS's own timeout (1.5 target durations) aborts too, yet is the CDN's failure;
            // an abort of VHS's own never calls back
            const reason = response.timedout
              ? 'timeout'
              : response.aborted
                ? undefined
                : refresher?.cdnFailureOf(sentUrl(response), response.status)
            if (movesCdn(response, reason)) {
              try {
                return send()
              } catch (sendError) {
                return callback(sendError, response)
              }
            }
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
        attempt = sent
        request = next
        clearTimeout(firstByteTimer)
        const timeoutMs = current()?.cdnTimeoutMs
        if (timeoutMs !== undefined)
          firstByteTimer = setTimeout(() => onSlowFirstByte(sent), timeoutMs)
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
