// Two tiny token-checking CDNs for the failover tests: `a` (preferred) and `b`, each on its own
// local host and accepting only the tokens signed for it, like two CDNs with different secrets.
import { serverDateOf, type TokenRecord, withServerDate } from '@proj/token-refresh'
import { type FakeTime, fakeTokenBackend, tinyCdn } from '@proj/token-refresh/testing'

type TinyCdn = Awaited<ReturnType<typeof tinyCdn>>

/** What {@link twoTinyCdns} gives a test. */
export interface TwoCdns {
  a: TinyCdn
  b: TinyCdn
  backend: ReturnType<typeof fakeTokenBackend>
  /** Records with `cdns: [a, b]`, every URL on its CDN's local host. */
  getToken: () => Promise<TokenRecord>
  /** Every request as `cdn token status`, in the order each CDN saw them (a's first). */
  hits(): string[]
  /** Ends a hang started with {@link TwoCdns.hang}, then closes both servers. */
  close(): Promise<void>
  /** From now on `cdn` answers nothing until `close()`. */
  hang(cdn: TinyCdn): void
}

/**
 * Starts both CDNs and a backend issuing `tok0001aplain` for `a` and `tok0001bplain` for `b`.
 *
 * @example
 * const cdns = await twoTinyCdns(time)
 * const refresher = await TokenRefresher.create(testRefreshOptions(time, cdns.getToken))
 */
export async function twoTinyCdns(time: FakeTime): Promise<TwoCdns> {
  const backend = fakeTokenBackend({ clock: time.clock, cdns: ['a', 'b'] })
  const a = await tinyCdn(time.clock)
  const b = await tinyCdn(time.clock)
  const servers: Record<string, TinyCdn> = { a, b }
  let release: () => void = () => undefined
  const hung = new Promise<void>((resolve) => {
    release = resolve
  })
  const getToken = async (): Promise<TokenRecord> => {
    const record = await backend.getToken()
    const cdns = await Promise.all(
      (record.cdns ?? []).map(async (entry) => {
        const server = servers[entry.id]
        if (!server) throw new Error(`no tiny CDN ${entry.id}`)
        // the CDN learns its own pair only, and moves the URLs onto its host
        const { token, token_ip, url, url_ip } = entry
        const moved = await server.issuing(async () => ({
          ...record,
          token,
          token_ip,
          url,
          url_ip,
        }))()
        return { ...entry, url: moved.url, url_ip: moved.url_ip }
      }),
    )
    const primary = cdns[0]
    if (!primary) throw new Error('the backend issued no cdns')
    const local = { ...record, url: primary.url, url_ip: primary.url_ip, cdns }
    return withServerDate(local, serverDateOf(record) ?? Number.NaN)
  }
  return {
    a,
    b,
    backend,
    getToken,
    hits: () =>
      Object.entries(servers).flatMap(([id, server]) =>
        server.hits.map((hit) => `${id} ${hit.token} ${hit.status}`),
      ),
    hang: (cdn) => cdn.onHit(() => hung),
    async close() {
      release()
      await Promise.all([a.close(), b.close()])
    },
  }
}
