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
  /** The path of `ses` below the session's folder; `undefined` when it is elsewhere. */
  sesRest: string | undefined
  /** `ses` names under the session what `up` names on the CDN below its token pair: a plain
   * relative path then names the same file under both, and needs no check. */
  mirrored: boolean
}

/** What a URL names: a file (`SegmentURL@media`) or, for a `BaseURL`, a file or a directory. */
export type UrlKind = 'file' | 'base'

/** A file of the video under the session: its URL, its path there, its query and fragment. */
interface SessionTarget {
  href: string
  rest: string
  suffix: string
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/
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

const parse = (value: string, base?: string): URL | undefined => {
  try {
    return new URL(value, base)
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
 * The references to a file of the session to try, best first: from the base at `fromRest` the
 * shortest relative one, then one through the session's folder (the same from every base as
 * deep); with the session's URL, root-relative, then absolute (which also serves below another
 * host's BaseURL).
 */
function referencesTo(
  { href, rest, suffix }: SessionTarget,
  fromRest: string | undefined,
  rootPath: string | undefined,
): string[] {
  const found: string[] = []
  if (fromRest !== undefined) {
    const climb = '../'.repeat(fromRest.split('/').length - 1)
    found.push(`${relativeReference(fromRest, rest) || './'}${suffix}`)
    found.push(`${climb + rest || './'}${suffix}`)
  }
  if (rootPath !== undefined) found.push(`${rootPath}${rest}${suffix}`, href)
  return found
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

  /** The file of the video `url` names on the CDN, under the session, when it serves it. */
  const target = (url: URL | undefined, kind: UrlKind, template: boolean) => {
    const rest = url && cdnFileRest(url, origin)
    if (url === undefined || rest === undefined) return undefined
    if (!servable(template ? probe(rest) : rest, kind)) return undefined
    const suffix = url.search + url.hash
    return { href: `${root}${rest}${suffix}`, rest, suffix }
  }

  const pair = (up: string, ses: string): BasePair => {
    const url = new URL(up)
    const rest = cdnFileRest(url, origin)
    const sesPath = new URL(ses).pathname
    const sesRest = ses.startsWith(root) ? sesPath.slice(rootPath.length) : undefined
    // with its token pair: nothing a relative path adds can look like one
    const paired = rest !== undefined && url.pathname.length - origin.directory.length > rest.length
    return { up, ses, sesRest, mirrored: paired && sesRest === rest }
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
    // an absolute URL is parsed once, whatever its bases
    const absolute = SCHEME.test(value) ? parse(value) : undefined
    const resolve = (ref: string, base: string) =>
      ref === value && absolute !== undefined ? absolute.href : parse(ref, base)?.href
    const targets = pairs.map((p) => target(absolute ?? parse(value, p.up), kind, template))
    const wanted = pairs.map((p, i) => targets[i]?.href ?? resolve(value, p.ses))
    const exact = (ref: string) => pairs.every((p, i) => resolve(ref, p.ses) === wanted[i])
    if (exact(value)) return undefined
    const served = (ref: string, onSession: boolean) =>
      pairs.every(
        (p, i) =>
          targets[i] === undefined ||
          (onSession && p.sesRest === undefined) ||
          resolve(ref, p.ses) === targets[i]?.href,
      )
    const anchor = pairs.findIndex((p, i) => targets[i] !== undefined && p.sesRest !== undefined)
    const to = targets[anchor] ?? targets.find((t) => t !== undefined)
    const candidates =
      to === undefined
        ? []
        : referencesTo(to, pairs[anchor]?.sesRest, session === undefined ? undefined : rootPath)
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
        const up = parse(site.value, parent.up)?.href
        const ses = parse(written[i] ?? site.value, parent.ses)?.href
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
