// mpd-parser (the MPD parser of video.js' VHS) ships no types: what the tests use of it.
declare module 'mpd-parser' {
  /** A node of the DOM @xmldom/xmldom builds (no DOM lib in this package's types). */
  export interface XmlNode {
    nodeType: number
    nodeName: string
    nodeValue: string | null
    attributes?: { length: number; item(index: number): { name: string; value: string } | null }
    childNodes: { length: number; item(index: number): XmlNode | null }
  }
  export interface ResolvedUri {
    uri: string
    resolvedUri: string
  }
  export interface DashSegment extends ResolvedUri {
    map?: ResolvedUri
  }
  export interface DashPlaylist {
    attributes: { id?: string; baseUrl?: string }
    segments?: DashSegment[]
    sidx?: DashSegment
  }
  export interface ParsedMpd {
    locations?: string[]
    representationInfo: unknown[]
  }
  export function stringToMpdXml(text: string): XmlNode
  export function inheritAttributes(
    mpd: XmlNode,
    options: { manifestUri: string; NOW?: number; clientOffset?: number },
  ): ParsedMpd
  export function toPlaylists(representationInfo: unknown[]): DashPlaylist[]
}

// fixtures read as text (Vite's `?raw`)
declare module '*.mpd?raw' {
  const text: string
  export default text
}
