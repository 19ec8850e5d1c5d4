import { cdnFailureOf, type StreamType } from '@proj/signing'
import type { CdnSigners } from '../cdn-record.ts'
import { LruMap } from '../lru.ts'
import { type CdnFailureReport, CdnHealth, type CdnHealthPolicy } from './cdn-health.ts'

/** One CDN a session file can be sent to. */
export interface SessionCdn {
  id: string
  /** Its plain and IP-bound hosts: absolute URIs on them in a playlist are the CDN's own. */
  hosts: readonly [string, string]
}

/** What a session file is, for signing it on any CDN. */
export interface SessionFileTarget {
  video: string
  type: StreamType
  /** Unix seconds. */
  expires: number
  /** The path below the token pair (`v0/seg_001.ts`), query excluded. */
  rest: string
}

/** The CDNs of one configuration as the session lane uses them. */
export type SessionCdns = ReturnType<typeof sessionCdns>

/** Signed bases kept, the most recently used (a few seconds' worth of distinct videos). */
const SIGNED_CACHE_SIZE = 1000

/** Everything before the master file of a signer's URL: the base its other files share. */
const baseOf = (url: string): string => {
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  return path.slice(0, path.lastIndexOf('/') + 1)
}

/** The query a signer put on its master URL (a query-token format), or `''`. */
const queryOf = (url: string): string => {
  const query = url.indexOf('?')
  return query === -1 ? '' : url.slice(query)
}

/**
 * The session lane's view of a configuration's CDNs, one CDN being a list of one. Each file is
 * sent to the CDN {@link CdnHealth} serves now, signed by that CDN's own signer only; the URL of
 * any other file beside the master playlist is the signer's master URL with the file in place of
 * `master.m3u8`, and the leaves of one video within a second share one signature.
 *
 * @example
 * ```ts
 * const cdns = sessionCdns(cdnSigners(config), { policy: CDN_HEALTH_DEFAULTS, now: Date.now, fetcher: fetch })
 * const url = await cdns.urlFor(cdns.serving(), target)
 * ```
 */
export function sessionCdns(
  signers: CdnSigners,
  { policy, now, fetcher }: { policy: CdnHealthPolicy; now: () => number; fetcher: typeof fetch },
) {
  const byId = new Map(signers.byPriority.map((entry) => [entry.cdn.id, entry]))
  const health = new CdnHealth([...byId.keys()], policy, now)
  const cdns: SessionCdn[] = signers.byPriority.map(({ cdn }) => ({
    id: cdn.id,
    hosts: [cdn.cdnDomain, cdn.cdnDomainIp],
  }))
  // each CDN's probe while it runs
  const probing = new Map<string, Promise<void>>()
  // the leaves of one video asked within the same second share their signature
  const signed = new LruMap<string, { base: string; query: string }>(SIGNED_CACHE_SIZE)
  const signBase = async (id: string, key: string, { video, type, expires }: SessionFileTarget) => {
    const entry = byId.get(id)
    if (entry === undefined) throw new RangeError(`no CDN ${id}`)
    // the session lane hands out plain tokens: the client's address is not signed in
    const pair = await entry.signer.sign({ video, type, expires, clientIp: '0.0.0.0' })
    const found = { base: baseOf(pair.url), query: queryOf(pair.url) }
    signed.set(key, found)
    return found
  }
  /** The URL of `target` on `id`: at once when its base was signed within the second. */
  const urlFor = (id: string, target: SessionFileTarget): string | Promise<string> => {
    const key = `${id} ${target.type} ${target.expires} ${target.video}`
    const found = signed.get(key)
    if (found !== undefined) return found.base + target.rest + found.query
    return signBase(id, key, target).then(({ base, query }) => base + target.rest + query)
  }
  /** HEAD of `target` on `id`: `undefined` when the CDN answered as it should, else why not. */
  const probe = async (
    id: string,
    target: SessionFileTarget,
  ): Promise<CdnFailureReport | undefined> => {
    try {
      const response = await fetcher(await urlFor(id, target), {
        method: 'HEAD',
        redirect: 'manual',
        signal: AbortSignal.timeout(policy.timeoutMs),
      })
      await response.body?.cancel()
      // signed just now by this lane: a refusal is the CDN's (its secret or clock), not the token's
      const failure = cdnFailureOf(response.status, { tokenFresh: true })
      return failure && { failure, status: response.status }
    } catch (error) {
      return {
        failure: error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'network',
      }
    }
  }
  return {
    health,
    cdns,
    /** Every host of every CDN. */
    hosts: cdns.flatMap((cdn) => cdn.hosts),
    /** The CDN that serves sessions now. */
    serving: () => health.serving(),
    urlFor,
    /**
     * Probes every CDN due for one with the file a session is sent to now. `serving`: the probe
     * of the CDN serving sessions now, started here or still running from an earlier request
     * (a leaf waits for it: while the serving CDN's health is being asked, nothing is sent
     * there blind); `others`: the rest's (Workers: hand it to `waitUntil`). Each resolves when
     * done; `undefined` where none is running.
     */
    probeDue(target: SessionFileTarget): {
      serving: Promise<void> | undefined
      others: Promise<void> | undefined
    } {
      const current = health.serving()
      const run = (id: string) => {
        if (!health.claimProbe(id)) return undefined
        const running = probe(id, target)
          .then((fault) => health.probed(id, fault))
          .finally(() => probing.delete(id))
        probing.set(id, running)
        return running
      }
      const others = cdns.flatMap(({ id }) => (id === current ? [] : (run(id) ?? [])))
      return {
        serving: run(current) ?? probing.get(current),
        others: others.length === 0 ? undefined : Promise.all(others).then(() => undefined),
      }
    },
  }
}
