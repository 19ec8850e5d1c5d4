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

/**
 * How soon a burst may probe the serving CDN again. A client that skips a failed segment and
 * asks for the next at once (ffmpeg's DASH reader runs through every remaining segment in a
 * tenth of a second) would otherwise be sent to a failed CDN blind until the next probe a
 * second later, and lose the rest of the video; a buffer fill pays at most one HEAD per this.
 */
export const BURST_PROBE_INTERVAL_MS = 100

/** Within this of its last leaf of the same track, a session's leaf is a burst. */
export const LEAF_BURST_MS = 250

/** Sessions' tracks whose last leaf is remembered, the most recently used. */
const BURST_SESSIONS = 10_000

/**
 * A recorder of each session's last leaf per track (a segment's path with its last number left
 * out: `v1/seg_#.ts`, `dash/chunk-0-#.m4s`), answering whether a leaf comes within
 * {@link LEAF_BURST_MS} of the one before it on the same track: faster than any player plays,
 * so a buffer fill or a client running through failures. The most recently used sessions are
 * kept (a miss only means a leaf is not seen as a burst).
 *
 * @example
 * ```ts
 * const burst = leafBurst(Date.now)
 * burst('sid-1', 'v1/seg_011.ts') // false
 * burst('sid-1', 'v1/seg_012.ts') // true, when at once
 * ```
 */
export function leafBurst(now: () => number) {
  const last = new LruMap<string, number>(BURST_SESSIONS)
  return (session: string, rest: string): boolean => {
    // the number is the name's, not the extension's (`.m4s`, `.mp4`)
    const dot = rest.lastIndexOf('.')
    const stem = dot > rest.lastIndexOf('/') ? rest.slice(0, dot) : rest
    const key = `${session} ${stem.replace(/\d+(?=\D*$)/, '#')}${rest.slice(stem.length)}`
    const at = now()
    const before = last.get(key)
    last.set(key, at)
    return before !== undefined && at - before < LEAF_BURST_MS
  }
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
  const isBurst = leafBurst(now)
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
     * done; `undefined` where none is running. When `session` asks faster than it plays (see
     * {@link leafBurst}), the serving CDN is probed again unless a probe started within
     * {@link BURST_PROBE_INTERVAL_MS}.
     */
    probeDue(
      target: SessionFileTarget,
      { session }: { session?: string } = {},
    ): {
      serving: Promise<void> | undefined
      others: Promise<void> | undefined
    } {
      const current = health.serving()
      // one CDN is never probed: its leaves need no record of their pace either
      const burst = session !== undefined && cdns.length > 1 && isBurst(session, target.rest)
      const run = (id: string, intervalMs?: number) => {
        if (!health.claimProbe(id, intervalMs)) return undefined
        const running = probe(id, target)
          .then((fault) => health.probed(id, fault))
          .finally(() => probing.delete(id))
        probing.set(id, running)
        return running
      }
      const others = cdns.flatMap(({ id }) => (id === current ? [] : (run(id) ?? [])))
      return {
        serving: run(current, burst ? BURST_PROBE_INTERVAL_MS : undefined) ?? probing.get(current),
        others: others.length === 0 ? undefined : Promise.all(others).then(() => undefined),
      }
    },
  }
}
