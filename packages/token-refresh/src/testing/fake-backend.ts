import { withServerDate } from '../fetch-token.ts'
import { type StreamRefusal, streamRefusalOf } from '../stream-limit.ts'
import type { Clock, TokenContext, TokenRecord } from '../types.ts'

/** Options of {@link fakeTokenBackend}. */
export interface FakeBackendOptions {
  clock: Clock
  /** Token lifetime in seconds. Default 20. */
  lifetime?: number
  /** How far the viewer's clock is ahead of the server's (ms); negative when behind. */
  clientAheadMs?: number
  /** Whether records carry the server's Date (as through `fetchToken`). Default true. */
  sendDate?: boolean
  video?: string
  /**
   * Sign like a real backend, by the second: calls within one second get the same token
   * (`tok` + the expiry). Default false: every call a new token `tok0001…`.
   */
  bySecond?: boolean
  /**
   * Several CDNs, preferred first: records then carry `cdns`, CDN `a` on hosts `a.cdn.test` and
   * `a.cdn-ip.test` with tokens `tok0001aplain`/`tok0001abound`, and the six fields are the
   * first CDN's. Default none: one CDN on `cdn.test`.
   */
  cdns?: string[]
  /**
   * Limit streams like a backend with `STREAM_LIMIT`: records carry `stream`, the one the call's
   * context names or a new one (`stream-1`, `stream-2`, … in order of start). Default false.
   */
  streams?: boolean
}

/** A scripted token backend: counts calls and can fail on demand. */
export interface FakeBackend {
  getToken: (context?: TokenContext) => Promise<TokenRecord>
  readonly calls: number
  /** The context of each call, in order. */
  readonly contexts: TokenContext[]
  /** Makes the next `n` calls reject (or hang, with `'hang'`). */
  fail(n: number, how?: 'reject' | 'hang'): void
  /**
   * Refuses every later call as the backend's 409 would (through `fetchToken`): a
   * `StreamLimitError` with `code`, limit 2 and two active streams, or the reason `evicted`.
   */
  refuseStreams(code: StreamRefusal): void
}

/** The 409 body of the stream-limit contract for `code`. */
const refusalBody = (code: StreamRefusal) =>
  code === 'stream_ended'
    ? { error: 'this stream was ended: a newer one took its place', code, reason: 'evicted' }
    : {
        error: 'stream limit reached: 2 of 2 streams are playing',
        code,
        limit: 2,
        streams: [
          { started_at: '2026-11-26T10:00:00Z', last_seen_at: '2026-11-26T10:01:10Z' },
          { started_at: '2026-11-26T10:00:30Z', last_seen_at: '2026-11-26T10:01:05Z' },
        ],
      }

/**
 * Issues records shaped like the token worker's (hosts `cdn.test` and `cdn-ip.test`), with tokens
 * `tok0001…` so tests can tell them apart.
 *
 * @example
 * ```ts
 * const backend = fakeTokenBackend({ clock: time.clock, lifetime: 20 })
 * await TokenRefresher.create({ getToken: backend.getToken, refreshLeadSeconds: 6 })
 * ```
 */
export function fakeTokenBackend(options: FakeBackendOptions): FakeBackend {
  const {
    clock,
    lifetime = 20,
    clientAheadMs = 0,
    sendDate = true,
    video = '12345_demo',
    bySecond = false,
    cdns = [],
    streams = false,
  } = options
  let calls = 0
  let started = 0
  let refusal: StreamRefusal | undefined
  const contexts: TokenContext[] = []
  let failures = 0
  let failure: 'reject' | 'hang' = 'reject'
  return {
    get calls() {
      return calls
    },
    contexts,
    fail(n, how = 'reject') {
      failures = n
      failure = how
    },
    refuseStreams(code) {
      refusal = code
    },
    // a parameter without a default: getToken.length 1, a getToken that takes the context
    getToken: async (given) => {
      const context = given ?? {}
      calls++
      contexts.push(context)
      if (refusal) throw streamRefusalOf(409, refusalBody(refusal))
      if (failures > 0) {
        failures--
        if (failure === 'hang') return new Promise<TokenRecord>(() => undefined)
        throw new Error(`backend down (call ${calls})`)
      }
      const serverNow = clock.now() - clientAheadMs
      const expires = Math.floor(serverNow / 1000) + lifetime
      const n = bySecond ? String(expires) : String(calls).padStart(4, '0')
      const pairOf = (id: string, prefix: string) => ({
        token: `tok${n}${id}plain`,
        token_ip: `tok${n}${id}bound`,
        url: `https://${prefix}cdn.test/videos/${video}/tok${n}${id}plain/${expires}/master.m3u8`,
        url_ip: `https://${prefix}cdn-ip.test/videos/${video}/tok${n}${id}bound/${expires}/master.m3u8`,
      })
      const all = cdns.map((id, priority) => ({ id, priority, expires, ...pairOf(id, `${id}.`) }))
      const primary = all[0] ?? pairOf('', '')
      const record: TokenRecord = {
        token: primary.token,
        token_ip: primary.token_ip,
        client_ip: '127.0.0.1',
        expires,
        url: primary.url,
        url_ip: primary.url_ip,
        ...(all.length >= 2 && { cdns: all }),
        ...(streams && { stream: context.stream ?? `stream-${++started}` }),
      }
      return sendDate ? withServerDate(record, serverNow) : record
    },
  }
}
