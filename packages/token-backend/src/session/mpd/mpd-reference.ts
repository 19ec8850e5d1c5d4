import { cdnFileRest } from '../cdn-file.ts'
import { relativeReference, sessionFile } from '../session-path.ts'
import type { PlaylistOrigin } from '../session-playlist.ts'
import { MpdError } from './mpd-error.ts'
import type { MpdLimits } from './mpd-limits.ts'
import type { UrlSite } from './mpd-scan.ts'

// Without the session's own URL, its files are URLs below a stand-in root: only references
// relative to one another reach the rewritten MPD, so its host and credential never matter.
const STAND_IN_ROOT = 'https://session.invalid/s/video/session/'

/** A base one URL resolves against: on the CDN, and under the session. */
export interface BasePair {
  /** The absolute base upstream (the MPD's URL, or a BaseURL resolved on the CDN). */
  up: string
  /** The absolute base under the session, as the rewritten MPD resolves it. */
  ses: string
  /** `ses` names under the session what `up` names on the CDN below its token pair: a plain
   * relative path then names the same file under both, and needs no check. */
  mirrored: boolean
}

/** What a URL names: a file (`SegmentURL@media`) or, for a `BaseURL`, a file or a directory. */
export type UrlKind = 'file' | 'base'

// A template's identifiers (`$Number$`, `$Number%05d$`) and its escaped dollar (`$$`), in order
const IDENTIFIER = /\$(?:(?:RepresentationID|Number|Bandwidth|Time|SubNumber)(?:%0\d+d)?)?\$/g
// A relative path without a scheme, escape, query, fragment or backslash
const PLAIN = /^[\w.~!$&'()*+,;=@-][\w.~!$&'()*+,;=@/-]*$/

/** A template as the player will expand it, in the characters a session path allows. */
const probe = (value: string) => value.replace(IDENTIFIER, (id) => (id === '$$' ? '$' : '0'))

/** A relative path with no dot segment: below a mirrored base it names the same file both ways. */
function plainPath(value: string, template: boolean): boolean {
  const path = template ? probe(value) : value
  return PLAIN.test(path) && path.split('/').every((part) => part !== '.' && part !== '..')
}

const resolve = (value: string, base: string): string | undefined => {
  try {
    return new URL(value, base).href
  } catch {
    return undefined
  }
}

/** Whether the session serves `rest` (a directory too, for a BaseURL). */
function servable(rest: string, kind: UrlKind): boolean {
  if (kind === 'base' && (rest === '' || rest.endsWith('/')))
    return rest === '' || sessionFile(rest.slice(0, -1)) !== undefined
  return sessionFile(rest) !== undefined
}

/** The session's folder of the video: the URL its files are relative to. */
function sessionRoot(rest: string, session: string | undefined): string {
  if (session === undefined) return STAND_IN_ROOT
  const root = new URL(`./${'../'.repeat(rest.split('/').length - 1)}`, session)
  root.search = ''
  root.hash = ''
  if (new URL(rest, root).pathname !== new URL(session).pathname)
    throw new TypeError(`the session URL ${session} does not end with the MPD's path ${rest}`)
  return root.href
}

/**
 * The URL arithmetic of one session's MPD: where each URL must point under the session, and the
 * reference that gets it there from each of its bases. `session` (the URL the client loaded the
 * MPD from) lets a reference be root-relative or absolute when no relative one serves.
 *
 * @example
 * ```ts
 * const space = sessionSpace(origin, undefined, MPD_LIMITS)
 * space.rewrite(site, [space.document], 'file') // the new reference, or undefined to keep it
 * ```
 */
export function sessionSpace(
  origin: PlaylistOrigin,
  session: string | undefined,
  limits: MpdLimits,
) {
  const root = sessionRoot(origin.rest, session)
  const rootPath = new URL(root).pathname
  const inside = (pair: BasePair) => pair.ses.startsWith(root)

  /** The session URL of the file `value` names against `base` on the CDN, when it serves it. */
  const target = (value: string, base: string, kind: UrlKind, template: boolean) => {
    let url: URL
    try {
      url = new URL(value, base)
    } catch {
      return undefined
    }
    const rest = cdnFileRest(url, origin)
    if (rest === undefined || !servable(template ? probe(rest) : rest, kind)) return undefined
    return `${root}${rest}${url.search}${url.hash}`
  }

  const pair = (up: string, ses: string): BasePair => {
    const url = new URL(up)
    const rest = cdnFileRest(url, origin)
    // with its token pair: nothing a relative path adds can look like one
    const paired = rest !== undefined && url.pathname.length - origin.directory.length > rest.length
    return { up, ses, mirrored: paired && new URL(ses).pathname === rootPath + rest }
  }

  /**
   * The references to `to` to try, best first: from the base `from` the shortest relative one,
   * then one through the session's folder (the same from every base as deep); with the
   * session's URL, root-relative, then absolute (the one that serves below another host).
   */
  const references = (from: string | undefined, to: string): string[] => {
    const target = new URL(to)
    const suffix = target.search + target.hash
    const found: string[] = []
    if (from !== undefined) {
      const fromRest = new URL(from).pathname.slice(rootPath.length)
      const toRest = target.pathname.slice(rootPath.length)
      const climb = '../'.repeat(fromRest.split('/').length - 1)
      found.push(`${relativeReference(fromRest, toRest) || './'}${suffix}`)
      found.push(`${climb + toRest || './'}${suffix}`)
    }
    if (session !== undefined) found.push(target.pathname + suffix, target.href)
    return found
  }

  /**
   * What `site` must say so that, against each of its bases under the session, it names the
   * file it named against the same base on the CDN. Best: every base resolves as before (a URL
   * the session does not serve keeps what it named under the session); else every base that
   * named a file of the video names it; else every such base on the session (below another
   * host's BaseURL alternative, the MPD's author chose what is served). `undefined`: keep it.
   */
  const rewrite = (site: UrlSite, pairs: readonly BasePair[], kind: UrlKind) => {
    const { value, template } = site
    if (pairs.every((p) => p.mirrored) && plainPath(value, template)) return undefined
    if (pairs.length > limits.maxBases)
      throw new MpdError(
        'bases',
        `${site.where} resolves against more than ${limits.maxBases} BaseURL combinations`,
      )
    const targets = pairs.map((p) => target(value, p.up, kind, template))
    const wanted = pairs.map((p, i) => targets[i] ?? resolve(value, p.ses))
    const exact = (ref: string) => pairs.every((p, i) => resolve(ref, p.ses) === wanted[i])
    if (exact(value)) return undefined
    const served = (ref: string, onSession: boolean) =>
      pairs.every(
        (p, i) =>
          targets[i] === undefined ||
          (onSession && !inside(p)) ||
          resolve(ref, p.ses) === targets[i],
      )
    const anchor = pairs.findIndex((p, i) => targets[i] !== undefined && inside(p))
    const to = targets[anchor] ?? targets.find((t) => t !== undefined)
    const candidates = to === undefined ? [] : references(pairs[anchor]?.ses, to)
    const written =
      candidates.find(exact) ??
      candidates.find((ref) => served(ref, false)) ??
      candidates.find((ref) => served(ref, true))
    if (written === undefined || site.start < 0)
      throw new MpdError(
        'unservable',
        `${site.where} names a file of the video that no reference relative to its BaseURLs reaches under the session`,
      )
    return written
  }

  /** The bases inside a level: each of its BaseURLs against each base above (rewritten first). */
  const rebase = (
    sites: readonly UrlSite[],
    parents: readonly BasePair[],
    write: (site: UrlSite, text: string) => void,
  ): BasePair[] => {
    if (sites.length === 0) return [...parents]
    if (sites.length * parents.length > limits.maxBases)
      throw new MpdError('bases', `BaseURLs combine into more than ${limits.maxBases} bases`)
    const written = sites.map((site) => {
      const text = rewrite(site, parents, 'base')
      if (text !== undefined) write(site, text)
      return text ?? site.value
    })
    const pairs = parents.flatMap((parent) =>
      sites.flatMap((site, i) => {
        const up = resolve(site.value, parent.up)
        const ses = resolve(written[i] ?? site.value, parent.ses)
        return up === undefined || ses === undefined ? [] : [pair(up, ses)]
      }),
    )
    return distinct(pairs)
  }

  const search = new URL(origin.upstream).search
  return {
    /** The MPD itself: its URL on the CDN, and under the session. */
    document: pair(origin.upstream, session ?? `${root}${origin.rest}${search}`),
    rewrite,
    rebase,
  }
}

/**
 * The bases of a list without repeats.
 *
 * @example
 * ```ts
 * distinct([a, a, b]) // [a, b]
 * ```
 */
export function distinct(pairs: readonly BasePair[]): BasePair[] {
  const seen = new Map<string, BasePair>()
  for (const pair of pairs) seen.set(`${pair.up} ${pair.ses}`, pair)
  return [...seen.values()]
}
