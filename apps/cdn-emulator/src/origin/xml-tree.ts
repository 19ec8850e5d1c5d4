import { SaxesParser } from 'saxes'

/** An element of a parsed XML document: comments and processing instructions are not kept. */
export interface XmlElement {
  name: string
  /** In document order. */
  attributes: Record<string, string>
  children: (XmlElement | string)[]
}

/**
 * Parses an XML document (the test media's MPD) with saxes into elements and text.
 *
 * @example
 * ```ts
 * parseXml('<MPD type="static"><Period/></MPD>').children[0] // { name: 'Period', … }
 * ```
 */
export function parseXml(text: string): XmlElement {
  const parser = new SaxesParser()
  const root: XmlElement = { name: '', attributes: {}, children: [] }
  const open: XmlElement[] = [root]
  const top = () => open[open.length - 1] ?? root
  parser.on('opentag', (tag) => {
    const element = { name: tag.name, attributes: { ...tag.attributes }, children: [] }
    top().children.push(element)
    open.push(element)
  })
  parser.on('closetag', () => open.pop())
  parser.on('text', (text) => {
    if (open.length > 1) top().children.push(text)
  })
  parser.write(text).close()
  const document = root.children.find((child) => typeof child !== 'string')
  if (!document) throw new Error('xml: no root element')
  return document
}

const escapeXml = (text: string, quote: boolean) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, quote ? '&quot;' : '"')

/**
 * Writes an element back as XML text, with an XML declaration.
 *
 * @example
 * ```ts
 * serializeXml(parseXml('<MPD/>')) // '<?xml version="1.0" encoding="utf-8"?>\n<MPD/>'
 * ```
 */
export function serializeXml(element: XmlElement): string {
  const write = ({ name, attributes, children }: XmlElement): string => {
    const attrs = Object.entries(attributes)
      .map(([key, value]) => ` ${key}="${escapeXml(value, true)}"`)
      .join('')
    if (children.length === 0) return `<${name}${attrs}/>`
    const inner = children
      .map((child) => (typeof child === 'string' ? escapeXml(child, false) : write(child)))
      .join('')
    return `<${name}${attrs}>${inner}</${name}>`
  }
  return `<?xml version="1.0" encoding="utf-8"?>\n${write(element)}`
}
