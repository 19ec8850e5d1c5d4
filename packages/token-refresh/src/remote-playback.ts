/** The MIME type of an HLS playlist, as Safari's AirPlay picker expects it on a `<source>`. */
const HLS_TYPE = 'application/x-mpegURL'

/**
 * Offers an edge session URL (`GET /session`) to AirPlay next to what the page plays itself:
 * appends `<source src={sessionUrl} type="application/x-mpegURL">` to the element and allows
 * remote playback. Safari hands that URL to the Apple TV, which plays it alone (no JavaScript
 * of ours runs there; the session keeps its requests signed). Needed with ManagedMediaSource:
 * hls.js disables remote playback unless such an alternative source exists. Players that
 * rebuild the element's sources on attach (hls.js removes `<source>` children) get it back at
 * once. Returns a function that withdraws the offer.
 *
 * @example
 * ```ts
 * const hls = new Hls(); hls.attachMedia(video); hls.loadSource(tokenUrl)
 * const { session_url } = await (await fetch('/session?video=demo&type=vod')).json()
 * const withdraw = offerRemotePlayback(video, session_url)
 * ```
 */
export function offerRemotePlayback(video: HTMLMediaElement, sessionUrl: string): () => void {
  const source = video.ownerDocument.createElement('source')
  source.src = sessionUrl
  source.type = HLS_TYPE
  const offer = () => {
    // after any source a player added: the element plays its own first, AirPlay takes this one
    if (source.parentNode !== video) video.append(source)
    video.disableRemotePlayback = false
  }
  offer()
  const View = video.ownerDocument.defaultView as (Window & typeof globalThis) | null
  const observer = View?.MutationObserver ? new View.MutationObserver(offer) : undefined
  observer?.observe(video, { childList: true })
  return () => {
    observer?.disconnect()
    source.remove()
  }
}
