import { cdnFileRest } from '../cdn-file.ts'
import { relativeReference, sessionFile } from '../session-path.ts'
import type { PlaylistOrigin } from '../session-playlist.ts'
import { MpdError } from './mpd-error.ts'
import type { MpdLimits } from './mpd-limits.ts'
import type { UrlSite } from './mpd-scan.ts'

// The session's files as URLs below a stand-in root: only references between them reach the
// rewritten MPD, so the session's real host and credential never matter here.
const ROOT_PATH = '/s/video/session/'
const SESSION_ROOT = `https://session.invalid${ROOT_PATH}`

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

/**
 * The URL arithmetic of one session's MPD: where each URL must point under the session, and the
 * reference that gets it there from each of its bases.
 *
 * @example
 * ```ts
 * const space = sessionSpace(origin, MPD_LIMITS)
 * space.rewrite(site, [space.document], 'file') // the new reference, or undefined to keep it
 * ```
 */
export function sessionSpace(origin: PlaylistOrigin, limits: MpdLimits) {
  /** The session URL of the file `url` names on the CDN, when the session serves it. */
  const target = (value: string, base: string, kind: UrlKind, template: boolean) => {
    let url: URL
    try {
      url = new URL(value, base)
    } catch {
      return undefined
    }
    const rest = cdnFileRest(url, origin)
    if (rest === undefined || !servable(template ? probe(rest) : rest, kind)) return undefined
    return `${SESSION_ROOT}${rest}${url.search}${url.hash}`
  }

  const pair = (up: string, ses: string): BasePair => {
    const url = new URL(up)
    const rest = cdnFileRest(url, origin)
    // with its token pair: nothing a relative path adds can look like one
    const paired = rest !== undefined && url.pathname.length - origin.directory.length > rest.length
    return { up, ses, mirrored: paired && new URL(ses).pathname === ROOT_PATH + rest }
  }

  /** From a base under the session to a file of it: a relative reference. */
  const reference = (from: string, to: string) => {
    const target = new URL(to)
    const path = relativeReference(
      new URL(from).pathname.slice(ROOT_PATH.length),
      target.pathname.slice(ROOT_PATH.length),
    )
    return (path === '' ? './' : path) + target.search + target.hash
  }

  /**
   * What `site` must say so that, against each of its bases under the session, it names the
   * file it named against the same base on the CDN (or, for a URL the session does not serve,
   * what it already named under the session). `undefined`: it already does, keep it as it is.
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
    if (pairs.every((p, i) => resolve(value, p.ses) === wanted[i])) return undefined
    // Under a BaseURL alternative on another host the MPD's author chose what is served; a
    // reference relative to the session names something else there, which the session accepts:
    // it serves its own files, and leaves the choice of alternative to the player.
    const inside = pairs.map((p) => p.ses.startsWith(SESSION_ROOT))
    const anchor = pairs.findIndex((_, i) => targets[i] !== undefined && inside[i])
    const to = targets[anchor]
    const from = pairs[anchor]?.ses
    if (to === undefined || from === undefined || site.start < 0)
      throw new MpdError(
        'unservable',
        `${site.where} names a file of the video below a BaseURL on another host: no reference there reaches the session`,
      )
    const written = reference(from, to)
    if (pairs.some((p, i) => inside[i] && resolve(written, p.ses) !== wanted[i]))
      throw new MpdError(
        'unservable',
        `${site.where} names a file of the video, but its BaseURLs need different references to it under the session`,
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
    document: pair(origin.upstream, `${SESSION_ROOT}${origin.rest}${search}`),
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
