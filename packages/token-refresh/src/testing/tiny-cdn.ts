import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serverDateOf, withServerDate } from '../fetch-token.ts'
import type { Clock, TokenContext, TokenRecord } from '../types.ts'
import { tokenBook } from './token-book.ts'

/** One request as the CDN saw it. */
export interface Hit {
  token: string
  path: string
  status: number
}

/** A running {@link tinyCdn}. */
export type TinyCdn = Awaited<ReturnType<typeof tinyCdn>>

/**
 * A small token-checking CDN for unit tests: it accepts exactly the pairs the test's backend
 * issued, on the test's clock ({@link tokenBook}: 403 unknown pair, 410 expired), and serves a two-rendition HLS
 * VOD with an AES key. Node only (node:http). The independent validator, nginx, is exercised by
 * the e2e suite.
 */
export async function tinyCdn(clock: Clock) {
  const book = tokenBook(clock)
  const once = new Map<string, number>()
  const hits: Hit[] = []
  let onHit: ((hit: Hit) => Promise<void> | void) | undefined
  const body = (rest: string): string => {
    if (rest === 'master.m3u8')
      return '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=200000,RESOLUTION=320x180\nv0/index.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=640x360\nv1/index.m3u8\n'
    if (rest.endsWith('index.m3u8'))
      return `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI="key.bin"\n${[0, 1, 2].map((i) => `#EXTINF:2.0,\nseg_00${i}.ts\n`).join('')}#EXT-X-ENDLIST\n`
    return 'x'.repeat(16)
  }
  const server: Server = createServer(async (request, response) => {
    response.setHeader('access-control-allow-origin', '*')
    if (request.method === 'OPTIONS') {
      // happy-dom preflights even simple GETs; a CDN answers them without checking tokens
      response.setHeader('access-control-allow-methods', 'GET')
      response.statusCode = 204
      response.end()
      return
    }
    const match = /^\/videos\/12345_demo\/([^/]+)\/(\d+)\/(.+)$/.exec(request.url ?? '')
    const [, token = '', , rest = ''] = match ?? []
    let status: number = match ? book.verdict(request.url ?? '') : 403
    for (const [suffix, forced] of once)
      if (rest.endsWith(suffix)) {
        once.delete(suffix)
        status = forced
        break
      }
    const hit = { token, path: rest, status }
    hits.push(hit)
    await onHit?.(hit)
    // the callback may change the answer (a fault injector): 503, or 403 for a valid token
    response.statusCode = hit.status
    response.end(hit.status === 200 ? body(rest) : `${hit.status}`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    hits,
    /** Wraps a getToken so the CDN accepts what it issues, on this server's host. */
    issuing(getToken: (context?: TokenContext) => Promise<TokenRecord>) {
      return async (context?: TokenContext): Promise<TokenRecord> => {
        const record = await getToken(context)
        book.issue(record.token, record.expires)
        book.issue(record.token_ip, record.expires)
        const local = (url: string) => url.replace(/^https:\/\/[^/]+/, `http://${host}`)
        const moved = { ...record, url: local(record.url), url_ip: local(record.url_ip) }
        return withServerDate(moved, serverDateOf(record) ?? Number.NaN)
      }
    },
    revoke: book.revoke,
    rejectAll: book.rejectAll,
    /** The next request whose path ends in `rest` gets `status`. */
    failOnce: (rest: string, status: number) => once.set(rest, status),
    /** Called with every request before it is answered; may set `hit.status`, or hang. */
    onHit: (callback: typeof onHit) => {
      onHit = callback
    },
    /** This CDN's `host:port`. */
    host,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        // requests a test left hanging would hold the server open
        server.closeAllConnections()
      }),
  }
}
