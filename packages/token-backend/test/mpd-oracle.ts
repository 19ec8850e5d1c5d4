import { inheritAttributes, stringToMpdXml, toPlaylists, type XmlNode } from 'mpd-parser'

// mpd-parser (VHS's MPD parser, on @xmldom/xmldom) is the independent oracle of the MPD
// rewriter's tests: what it resolves in an MPD is what a player would request.

// a fixed wall clock for live MPDs: the same segments before and after
const NOW = Date.parse('2026-11-26T07:02:00Z')

/** A URL a player requests, and the base it resolved it against. */
export interface ResolvedUrl {
  url: string
  /** The Representation's BaseURL (resolved), or the MPD's own URL. */
  base: string
}

/**
 * Every URL mpd-parser resolves in the MPD loaded from `url`, in its order: per Representation
 * (and BaseURL combination) its index and init section, then each segment's init and media;
 * then the MPD's `Location`s resolved against `url`.
 *
 * @example
 * ```ts
 * resolvedUrls(text, 'https://cdn.example.com/videos/12345_demo/tok/1800000000/dash/manifest.mpd')
 * ```
 */
export function resolvedUrls(text: string, url: string): ResolvedUrl[] {
  const parsed = inheritAttributes(stringToMpdXml(text), { manifestUri: url, NOW })
  const urls: ResolvedUrl[] = []
  for (const playlist of toPlaylists(parsed.representationInfo)) {
    const base = playlist.attributes.baseUrl ?? url
    for (const segment of [playlist.sidx, ...(playlist.segments ?? [])]) {
      if (segment?.map) urls.push({ url: segment.map.resolvedUri, base })
      if (segment) urls.push({ url: segment.resolvedUri, base })
    }
  }
  for (const location of parsed.locations ?? [])
    urls.push({ url: new URL(location, url).href, base: url })
  return urls
}

/** A DOM node as text: its kind, name, attributes and children, with `skip` left out. */
function outline(node: XmlNode, skip: (node: XmlNode, attribute?: string) => boolean): string {
  if (node.nodeType === 3 || node.nodeType === 4) return `#text ${JSON.stringify(node.nodeValue)}`
  if (node.nodeType === 8) return `#comment ${JSON.stringify(node.nodeValue)}`
  const attributes: string[] = []
  for (let i = 0; i < (node.attributes?.length ?? 0); i++) {
    const attribute = node.attributes?.item(i)
    if (attribute && !skip(node, attribute.name))
      attributes.push(`${attribute.name}=${JSON.stringify(attribute.value)}`)
  }
  const children: string[] = []
  if (!skip(node))
    for (let i = 0; i < node.childNodes.length; i++) {
      const child = node.childNodes.item(i)
      if (child) children.push(outline(child, skip))
    }
  return `<${node.nodeName} ${attributes.join(' ')}>[${children.join(',')}]`
}

const URL_ELEMENTS = new Set(['BaseURL', 'Location', 'PatchLocation'])
const URL_ATTRIBUTES = new Set([
  'media',
  'initialization',
  'index',
  'bitstreamSwitching',
  'sourceURL',
])

/**
 * The MPD as @xmldom/xmldom reads it, every URL left out (the text of `BaseURL`, `Location`,
 * `PatchLocation`; the URL attributes): what a rewrite must leave exactly as it was. CDATA
 * sections count as text.
 *
 * @example
 * ```ts
 * expect(withoutUrls(rewritten)).toBe(withoutUrls(text))
 * ```
 */
export function withoutUrls(text: string): string {
  return outline(stringToMpdXml(text), (node, attribute) =>
    attribute === undefined ? URL_ELEMENTS.has(node.nodeName) : URL_ATTRIBUTES.has(attribute),
  )
}
