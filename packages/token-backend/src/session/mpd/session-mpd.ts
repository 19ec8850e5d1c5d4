import type { PlaylistOrigin } from '../session-playlist.ts'
import { MpdError } from './mpd-error.ts'
import { MPD_LIMITS, type MpdLimits } from './mpd-limits.ts'
import { type BasePair, distinct, sessionSpace, type UrlKind } from './mpd-reference.ts'
import { type Level, scanMpd, type UrlSite } from './mpd-scan.ts'

/** Where an MPD came from and where the session serves it. */
export interface MpdOrigin extends PlaylistOrigin {
  /**
   * The URL the client loaded the MPD from under the session (`…/s/demo/{session}/dash/manifest.mpd`),
   * as public as `session_url`. Optional: without it every reference written is relative, and
   * an MPD whose URLs no relative reference serves (BaseURL alternatives of different depths, a
   * file of the video below another host's BaseURL) is refused.
   */
  session?: string
}

/** URLs of one kind given at one level, the bases of that level, and of the Representations using them. */
interface Group {
  sites: UrlSite[]
  own: BasePair[]
  users: BasePair[]
}
/** The segment information in effect at a level, by kind. */
type Inherited = ReadonlyMap<string, Group>

/** One replacement in the document: the text between `start` and `end` becomes `text`. */
interface Edit {
  start: number
  end: number
  text: string
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
}
/** A reference as XML character data: valid between either quotes and in element text. */
const escapeXml = (value: string) => value.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char)

/** The document with each edit spliced in at its place; every other character as it was. */
function splice(text: string, edits: Edit[]): string {
  if (edits.length === 0) return text
  edits.sort((a, b) => a.start - b.start)
  let out = ''
  let at = 0
  for (const { start, end, text: replacement } of edits) {
    out += text.slice(at, start) + replacement
    at = end
  }
  return out + text.slice(at)
}

/**
 * Rewrites an upstream MPD (MPEG-DASH manifest) for a session, the DASH twin of
 * `sessionPlaylist`: every URL that names a file of the session's video on the CDN (relative,
 * root-relative or absolute, with or without a token pair) is made to name that file under the
 * session, as a reference relative to its base there, so the client asks the session for it.
 * The URLs are the `BaseURL` of every level (MPD, Period, AdaptationSet, Representation),
 * `Location`, `PatchLocation`, `SegmentTemplate@media`/`@initialization`/`@index`/
 * `@bitstreamSwitching` (their `$…$` identifiers kept), `SegmentURL@media`/`@index`, and the
 * `@sourceURL` of `Initialization`, `RepresentationIndex`, `BitstreamSwitching`. A URL is
 * resolved as a player does: against its BaseURLs (each alternative, level by level), a
 * segment's against those of every Representation using it; one that already resolves right
 * under the session is kept byte for byte, as is any URL the session does not serve (another
 * host or video, `data:`) and every other character of the document: new references are spliced
 * in where the parser found the old ones, never re-serialized.
 *
 * The MPD is read by saxes within `limits` (size, depth, attribute and URL length, BaseURL
 * combinations), which also bound the time a rewrite takes; a DOCTYPE is refused, so no entity
 * is ever expanded and nothing is ever fetched.
 *
 * @throws {MpdError} (an HTTP 502) when the MPD cannot be served under the session.
 * @example
 * ```ts
 * sessionMpd(
 *   '<MPD><BaseURL>https://cdn.example.com/videos/12345_demo/tok123/1800000000/dash/</BaseURL></MPD>',
 *   {
 *     upstream: 'https://cdn.example.com/videos/12345_demo/abcdef/1800000030/dash/manifest.mpd',
 *     cdnHosts: ['cdn.example.com'], directory: '/videos/12345_demo/', rest: 'dash/manifest.mpd',
 *   },
 * )
 * // '<MPD><BaseURL>./</BaseURL></MPD>'
 * ```
 */
export function sessionMpd(
  text: string,
  origin: MpdOrigin,
  limits: MpdLimits = MPD_LIMITS,
): string {
  if (text.length > limits.maxLength)
    throw new MpdError('size', `it is longer than ${limits.maxLength} characters`)
  const { root, locations } = scanMpd(text, limits)
  const space = sessionSpace(origin, origin.session, limits)
  const edits: Edit[] = []
  const write = (site: UrlSite, reference: string) =>
    edits.push({ start: site.start, end: site.end, text: escapeXml(reference) })
  const rewrite = (sites: readonly UrlSite[], pairs: readonly BasePair[], kind: UrlKind) => {
    for (const site of sites) {
      const reference = space.rewrite(site, pairs, kind)
      if (reference !== undefined) write(site, reference)
    }
  }
  // Segment information is resolved against the bases of each Representation using it: a
  // level's own URLs of one kind (`SegmentTemplate@media`) replace those it inherits.
  const used: Group[] = []
  const walk = (level: Level, parents: readonly BasePair[], inherited: Inherited) => {
    const own = space.rebase(level.bases, parents, write)
    const mine = new Map<string, Group>()
    for (const site of level.urls) {
      let group = mine.get(site.where)
      if (group === undefined) {
        group = { sites: [], users: [], own }
        mine.set(site.where, group)
        used.push(group)
      }
      group.sites.push(site)
    }
    const groups: Inherited = new Map([...inherited, ...mine])
    if (level.name === 'Representation')
      for (const group of groups.values()) group.users.push(...own)
    for (const child of level.children) walk(child, own, groups)
  }
  walk(root, [space.document], new Map())
  for (const { sites, users, own } of used)
    rewrite(sites, users.length === 0 ? own : distinct(users), 'file')
  rewrite(locations, [space.document], 'file')
  return splice(text, edits)
}
