import { withServerDate } from '../fetch-token.ts'
import type { Clock, TokenRecord } from '../types.ts'

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
}

/** A scripted token backend: counts calls and can fail on demand. */
export interface FakeBackend {
  getToken: () => Promise<TokenRecord>
  readonly calls: number
  /** Makes the next `n` calls reject (or hang, with `'hang'`). */
  fail(n: number, how?: 'reject' | 'hang'): void
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
  } = options
  let calls = 0
  let failures = 0
  let failure: 'reject' | 'hang' = 'reject'
  return {
    get calls() {
      return calls
    },
    fail(n, how = 'reject') {
      failures = n
      failure = how
    },
    getToken: async () => {
      calls++
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
      }
      return sendDate ? withServerDate(record, serverNow) : record
    },
  }
}
