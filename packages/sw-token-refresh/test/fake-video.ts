// A media element for page tests (happy-dom has no media playback): only the parts the swap and
// the native protection use, with playback simulated by the test.

/** The parts of a media element the swap uses, with playback simulated by hand. */
export class FakeVideo extends EventTarget {
  src = ''
  crossOrigin: string | null = null
  currentTime = 0
  paused = true
  readyState = 0
  duration = 80
  playbackRate = 1
  defaultPlaybackRate = 1
  autoplay = false
  ended = false
  error: { code: number } | null = null
  textTracks = Object.assign(new EventTarget(), { [Symbol.iterator]: [][Symbol.iterator] })
  get currentSrc() {
    return this.src
  }
  play() {
    this.paused = false
    this.dispatchEvent(new Event('play'))
    return Promise.resolve()
  }
  /** The element loaded the new source up to playing. */
  loaded() {
    this.readyState = 4
    this.dispatchEvent(new Event('loadedmetadata'))
    if (!this.paused) this.dispatchEvent(new Event('playing'))
  }
}
