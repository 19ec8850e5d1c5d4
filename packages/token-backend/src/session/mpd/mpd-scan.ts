import { SaxesParser } from 'saxes'
import { MpdError } from './mpd-error.ts'
import type { MpdLimits } from './mpd-limits.ts'

/** One URL of the MPD: what a player reads, and where its text is in the document. */
export interface UrlSite {
  /** The URL as a player reads it: entities decoded, an element's text trimmed. */
  value: string
  /** Where its text starts in the document (`-1`: an empty element, nowhere to write). */
  start: number
  /** Where its text ends (exclusive). */
  end: number
  /** A `SegmentTemplate` attribute: the player substitutes its `$…$` identifiers. */
  template: boolean
  /** What it is, for messages and inheritance: `BaseURL`, `SegmentTemplate@media`,
   * `SegmentList/SegmentURL@media` (a level's own replaces what it inherits of the same). */
  where: string
}

/** The elements whose `BaseURL` children rebase every URL inside them. */
export type LevelName = 'MPD' | 'Period' | 'AdaptationSet' | 'Representation'

/** An MPD, Period, AdaptationSet or Representation, with the URLs that belong to it. */
export interface Level {
  name: LevelName
  /** Its `BaseURL` children: alternatives, each resolved against the level above. */
  bases: UrlSite[]
  /** The URLs of its segment information (`SegmentTemplate`, `SegmentList`, `SegmentBase`). */
  urls: UrlSite[]
  /** The levels inside it. */
  children: Level[]
}

/** What the scan found: the level tree and the MPD's own locations. */
export interface MpdOutline {
  root: Level
  /** `Location` and `PatchLocation`: resolved against the MPD's own URL. */
  locations: UrlSite[]
}

const LEVEL_BELOW: Readonly<Record<string, LevelName>> = {
  MPD: 'Period',
  Period: 'AdaptationSet',
  AdaptationSet: 'Representation',
}
/** The URL attributes of each element of segment information, and whether they are templates. */
const URL_ATTRIBUTES: Readonly<Record<string, { names: readonly string[]; template: boolean }>> = {
  SegmentTemplate: {
    names: ['media', 'initialization', 'index', 'bitstreamSwitching'],
    template: true,
  },
  Initialization: { names: ['sourceURL'], template: false },
  RepresentationIndex: { names: ['sourceURL'], template: false },
  BitstreamSwitching: { names: ['sourceURL'], template: false },
  SegmentURL: { names: ['media', 'index'], template: false },
}
const SEGMENT_INFO = new Set(['SegmentTemplate', 'SegmentList', 'SegmentBase'])
/** What each element of segment information may hold that carries a URL. */
const SEGMENT_PARTS: Readonly<Record<string, ReadonlySet<string>>> = {
  SegmentTemplate: new Set(['Initialization', 'RepresentationIndex', 'BitstreamSwitching']),
  SegmentList: new Set([
    'Initialization',
    'RepresentationIndex',
    'BitstreamSwitching',
    'SegmentURL',
  ]),
  SegmentBase: new Set(['Initialization', 'RepresentationIndex']),
}

/** What an open element is to the scan. */
type Open =
  | { kind: 'level'; level: Level }
  | { kind: 'segment-info'; name: string; level: Level }
  | { kind: 'text-url'; into: UrlSite[]; where: string; values: string[]; contentStart: number }
  | { kind: 'other' }

interface RawAttribute {
  name: string
  value: string
  /** Index of its closing quote. */
  end: number
}

const isXmlSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13

/** Characters of literal XML whitespace at the start (`step` 1) or end (`step` -1) of a range. */
function spaceRun(text: string, from: number, to: number, step: 1 | -1): number {
  let count = 0
  let at = step === 1 ? from : to - 1
  while (at >= from && at < to && isXmlSpace(text.charCodeAt(at))) {
    count++
    at += step
  }
  return count
}

/** A name from the document (or saxes' message naming one), short enough for an error. */
const named = (name: string) => (name.length > 96 ? `${name.slice(0, 96)}…` : name)

/** Trims XML whitespace only (a URL's own characters are the player's business). */
const trimXml = (value: string) => {
  let start = 0
  let end = value.length
  while (start < end && isXmlSpace(value.charCodeAt(start))) start++
  while (end > start && isXmlSpace(value.charCodeAt(end - 1))) end--
  return value.slice(start, end)
}

/**
 * The URL an element holds (its text and CDATA, trimmed) and the span to replace to change it:
 * the element's content but its outer whitespace, a comment or CDATA wrapper inside included.
 */
function textSite(
  text: string,
  values: readonly string[],
  [contentStart, contentEnd]: readonly [number, number],
  where: string,
): UrlSite {
  const value = trimXml(values.join(''))
  if (value === '') return { value, start: -1, end: -1, template: false, where }
  const start = contentStart + spaceRun(text, contentStart, contentEnd, 1)
  const end = contentEnd - spaceRun(text, contentStart, contentEnd, -1)
  return { value, start, end, template: false, where }
}

/**
 * Reads an MPD with saxes (a conforming, non-validating XML parser that never reads a DTD) and
 * finds every URL of the video's files with its position in the text: `BaseURL` at each level,
 * `Location`, `PatchLocation`, and the URL attributes of the segment information. Element names
 * are matched with the prefix the root element uses (the MPD namespace's, whatever it is called).
 * Stops at the first error: a DOCTYPE, any well-formedness error (an undefined entity is one),
 * or a limit passed.
 *
 * @throws {MpdError} when the MPD cannot be served.
 * @example
 * ```ts
 * const { root } = scanMpd('<MPD><BaseURL>dash/</BaseURL><Period/></MPD>', MPD_LIMITS)
 * root.bases[0]?.value // 'dash/'
 * ```
 */
export function scanMpd(text: string, limits: MpdLimits): MpdOutline {
  const parser = new SaxesParser({ position: true })
  const stack: Open[] = []
  const locations: UrlSite[] = []
  let root: Level | undefined
  let prefix = ''
  let attributes: RawAttribute[] = []

  const attributeSites = (element: string, list: UrlSite[], within = '') => {
    const spec = URL_ATTRIBUTES[element]
    if (spec === undefined) return
    for (const { name, value, end } of attributes) {
      if (!spec.names.includes(name)) continue
      if (value.length > limits.maxUrlLength)
        throw new MpdError(
          'url',
          `${element}@${name} is longer than ${limits.maxUrlLength} characters`,
        )
      // the value cannot hold its own quote: the one before it opens the value
      const quote = text[end] === "'" ? "'" : '"'
      const start = text.lastIndexOf(quote, end - 1) + 1
      const where = `${within}${element}@${name}`
      list.push({ value, start, end, template: spec.template, where })
    }
  }

  const open = (name: string, parent: Open | undefined): Open => {
    if (parent === undefined) {
      const colon = name.indexOf(':')
      prefix = colon === -1 ? '' : name.slice(0, colon + 1)
      if (name.slice(prefix.length) !== 'MPD')
        throw new MpdError('not-mpd', `the root element is <${named(name)}>, not <MPD>`)
      root = { name: 'MPD', bases: [], urls: [], children: [] }
      return { kind: 'level', level: root }
    }
    if (parent.kind === 'text-url')
      throw new MpdError('syntax', `<${parent.where}> holds an element: a URL is text`)
    if (!name.startsWith(prefix)) return { kind: 'other' }
    const local = name.slice(prefix.length)
    if (parent.kind === 'level') {
      const { level } = parent
      if (LEVEL_BELOW[level.name] === local) {
        const child: Level = { name: local as LevelName, bases: [], urls: [], children: [] }
        level.children.push(child)
        return { kind: 'level', level: child }
      }
      const url = (into: UrlSite[]): Open => ({
        kind: 'text-url',
        into,
        where: local,
        values: [],
        contentStart: parser.position,
      })
      if (local === 'BaseURL') return url(level.bases)
      if (level.name === 'MPD' && (local === 'Location' || local === 'PatchLocation'))
        return url(locations)
      if (level.name !== 'MPD' && SEGMENT_INFO.has(local)) {
        attributeSites(local, level.urls)
        return { kind: 'segment-info', name: local, level }
      }
    }
    if (parent.kind === 'segment-info' && SEGMENT_PARTS[parent.name]?.has(local))
      attributeSites(local, parent.level.urls, `${parent.name}/`)
    return { kind: 'other' }
  }

  // Six handlers: saxes stores each on the parser object, and from the eighth on V8 makes that
  // object a dictionary (parsing five times slower). Well-formedness errors are saxes' own
  // throws; comments and processing instructions need no handler.
  parser.on('doctype', () => {
    throw new MpdError('doctype', 'it has a DOCTYPE (entities are never expanded)')
  })
  parser.on('attribute', ({ name, value }) => {
    if (value.length > limits.maxAttributeLength)
      throw new MpdError(
        'attribute',
        `attribute ${named(name)} is longer than ${limits.maxAttributeLength} characters`,
      )
    attributes.push({ name, value, end: parser.position - 1 })
  })
  parser.on('opentag', (tag) => {
    if (stack.length >= limits.maxDepth)
      throw new MpdError('depth', `elements nest deeper than ${limits.maxDepth}`)
    stack.push(open(tag.name, stack.at(-1)))
    attributes = []
  })
  const character = (value: string) => {
    const top = stack.at(-1)
    if (top?.kind === 'text-url') top.values.push(value)
  }
  parser.on('text', character)
  parser.on('cdata', character)
  parser.on('closetag', () => {
    const top = stack.pop()
    if (top?.kind !== 'text-url') return
    // the close tag holds no other `<`
    const content = [top.contentStart, text.lastIndexOf('<', parser.position - 1)] as const
    const site = textSite(text, top.values, content, top.where)
    if (site.value.length > limits.maxUrlLength)
      throw new MpdError('url', `${top.where} is longer than ${limits.maxUrlLength} characters`)
    top.into.push(site)
  })
  try {
    parser.write(text).close()
  } catch (error) {
    // saxes throws a plain Error at the first well-formedness error
    if (error instanceof Error && error.constructor === Error)
      throw new MpdError('syntax', `not well-formed XML: ${named(error.message)}`)
    throw error
  }
  if (root === undefined) throw new MpdError('not-mpd', 'it has no root element')
  return { root, locations }
}
