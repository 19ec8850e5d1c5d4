import type { CdnUrls } from '@proj/signing'
import { serverDateOf, withServerDate } from '../fetch-token.ts'
import type { TokenRecord } from '../types.ts'
import { type FakeBackend, fakeTokenBackend } from './fake-backend.ts'
import type { FakeTime } from './fake-time.ts'
import { type TinyCdn, tinyCdn } from './tiny-cdn.ts'

/** What a CDN of {@link twoTinyCdns} answers from now on: a status (503, 403 for a valid token), `'hang'`, or normally. */
export type CdnFault = number | 'hang' | undefined

/** What {@link twoTinyCdns} gives a test. */
export interface TwoCdns {
  /** The preferred CDN (priority 0). */
  a: TinyCdn
  /** The second CDN (priority 1). */
  b: TinyCdn
  backend: FakeBackend
  /** Records with `cdns: [a, b]`, every URL on its CDN's local host. */
  getToken: () => Promise<TokenRecord>
  /** Every request as `cdn token status`, in the order each CDN saw them (a's first). */
  hits(): string[]
  /** From now on `cdn` answers `fault`; a hang lasts until {@link TwoCdns.close}. */
  fault(cdn: TinyCdn, fault: CdnFault): void
  /** Same as `fault(cdn, 'hang')`. */
  hang(cdn: TinyCdn): void
  /** Ends every hang, then closes both servers. */
  close(): Promise<void>
}

/**
 * Two tiny token-checking CDNs for the failover tests: `a` (preferred) and `b`, each on its own
 * local host and accepting only the tokens signed for it, like two CDNs with different secrets,
 * and a backend issuing `tok0001aplain` for `a` and `tok0001bplain` for `b`. Node only.
 *
 * @example
 * const cdns = await twoTinyCdns(time)
 * const refresher = await TokenRefresher.create(testRefreshOptions(time, cdns.getToken))
 * cdns.fault(cdns.a, 503)
 */
export async function twoTinyCdns(time: FakeTime): Promise<TwoCdns> {
  const backend = fakeTokenBackend({ clock: time.clock, cdns: ['a', 'b'] })
  const a = await tinyCdn(time.clock)
  const b = await tinyCdn(time.clock)
  const servers: Record<string, TinyCdn> = { a, b }
  let release: () => void = () => undefined
  // one promise for every hang, so that close() lets the handlers finish instead of leaking them
  const hung = new Promise<void>((resolve) => {
    release = resolve
  })
  const onItsHost = async (record: TokenRecord, entry: CdnUrls): Promise<CdnUrls> => {
    const server = servers[entry.id]
    if (!server) throw new Error(`no tiny CDN ${entry.id}`)
    // each CDN learns its own pair only, so another CDN's token gets its 403
    const { token, token_ip, url, url_ip } = entry
    const moved = await server.issuing(async () => ({ ...record, token, token_ip, url, url_ip }))(
      {},
    )
    return { ...entry, url: moved.url, url_ip: moved.url_ip }
  }
  const fault = (cdn: TinyCdn, what: CdnFault): void => {
    cdn.onHit((hit) => {
      if (what === 'hang') return hung
      if (what !== undefined) hit.status = what
    })
  }
  return {
    a,
    b,
    backend,
    async getToken() {
      const record = await backend.getToken()
      const cdns = await Promise.all((record.cdns ?? []).map((entry) => onItsHost(record, entry)))
      const [primary] = cdns
      if (!primary) throw new Error('the backend issued no cdns')
      const local = { ...record, url: primary.url, url_ip: primary.url_ip, cdns }
      return withServerDate(local, serverDateOf(record) ?? Number.NaN)
    },
    hits: () =>
      Object.entries(servers).flatMap(([id, server]) =>
        server.hits.map((hit) => `${id} ${hit.token} ${hit.status}`),
      ),
    fault,
    hang: (cdn) => fault(cdn, 'hang'),
    async close() {
      release()
      await Promise.all([a.close(), b.close()])
    },
  }
}
