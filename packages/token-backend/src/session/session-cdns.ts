import type { StreamType } from '@proj/signing'
import { type CdnSigners, cdnSigners } from '../cdn-record.ts'
import type { TokenWorkerConfig } from '../config.ts'
import { CdnHealth, type CdnHealthPolicy } from './cdn-health.ts'

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
export type SessionCdns = NonNullable<ReturnType<typeof sessionCdns>>

/** Signed bases kept at most (a few seconds' worth of distinct videos; then started afresh). */
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
 * The session lane's view of a configuration with several CDNs (`undefined` with one: the lane
 * signs today's `secure_link` URL directly). Each file is sent to the CDN {@link CdnHealth}
 * serves now, signed by that CDN's own signer only; the URL of any other file beside the master
 * playlist is the signer's master URL with the file in place of `master.m3u8`.
 *
 * @example
 * ```ts
 * const cdns = sessionCdns(config, { policy: CDN_HEALTH_DEFAULTS, now: Date.now, fetcher: fetch })
 * const { cdn, url } = await cdns.urlFor(cdns.serving(), target)
 * ```
 */
export function sessionCdns(
  config: TokenWorkerConfig,
  {
    policy,
    now,
    fetcher,
    signers = cdnSigners(config),
  }: {
    policy: CdnHealthPolicy
    now: () => number
    fetcher: typeof fetch
    signers?: CdnSigners | undefined
  },
) {
  if (signers === undefined || signers.byPriority.length < 2) return undefined
  const byId = new Map(signers.byPriority.map((entry) => [entry.cdn.id, entry]))
  const health = new CdnHealth([...byId.keys()], policy, now)
  const cdns: SessionCdn[] = signers.byPriority.map(({ cdn }) => ({
    id: cdn.id,
    hosts: [cdn.cdnDomain, cdn.cdnDomainIp],
  }))
  // each CDN's probe while it runs
  const probing = new Map<string, Promise<void>>()
  // the leaves of one video asked within the same second share their signature
  const signed = new Map<string, { base: string; query: string }>()
  const urlFor = async (id: string, { video, type, expires, rest }: SessionFileTarget) => {
    const key = `${id} ${type} ${expires} ${video}`
    let found = signed.get(key)
    if (found === undefined) {
      const entry = byId.get(id)
      if (entry === undefined) throw new RangeError(`no CDN ${id}`)
      // the session lane hands out plain tokens: the client's address is not signed in
      const pair = await entry.signer.sign({ video, type, expires, clientIp: '0.0.0.0' })
      found = { base: baseOf(pair.url), query: queryOf(pair.url) }
      if (signed.size >= SIGNED_CACHE_SIZE) signed.clear()
      signed.set(key, found)
    }
    return found.base + rest + found.query
  }
  /** HEAD of `target` on `id`: `undefined` when the CDN answered as it should, else why not. */
  const probe = async (id: string, target: SessionFileTarget): Promise<string | undefined> => {
    try {
      const response = await fetcher(await urlFor(id, target), {
        method: 'HEAD',
        redirect: 'manual',
        signal: AbortSignal.timeout(policy.timeoutMs),
      })
      await response.body?.cancel()
      return cdnFailureOf(response.status)
    } catch (error) {
      return error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'network'
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
          .then((failure) => health.probed(id, failure))
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

/**
 * Whether a CDN's answer to a URL the worker signed itself says the CDN is failing: a refusal
 * (its secret or clock is not the worker's) or a server error. A 404 is the file's, not the CDN's.
 *
 * @example
 * ```ts
 * cdnFailureOf(503) // '503'
 * cdnFailureOf(404) // undefined
 * ```
 */
export function cdnFailureOf(status: number): string | undefined {
  return status === 403 || status === 410 || status >= 500 ? String(status) : undefined
}
