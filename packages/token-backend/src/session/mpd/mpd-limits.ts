/**
 * How much of an MPD the session reads before refusing it: each bound stops one kind of hostile
 * document early, and together they bound the time a rewrite takes (one linear pass over at most
 * `maxLength` characters, at most `maxBases` resolutions per URL).
 */
export interface MpdLimits {
  /** Longest MPD, in characters: the 8 MiB a session playlist may have. */
  maxLength: number
  /** Deepest element nesting: an MPD nests 7 deep (MPD, Period, AdaptationSet, Representation,
   * SegmentList, SegmentURL); a hostile one thousands, which would cost a stack per level. */
  maxDepth: number
  /** Longest attribute value: PlayReady headers and `cenc:pssh` run to a few KiB. */
  maxAttributeLength: number
  /** Longest URL: the session serves no path over 4 KiB (414). */
  maxUrlLength: number
  /** Most BaseURL combinations one URL resolves against (alternatives multiply level by level). */
  maxBases: number
}

/**
 * The limits {@link sessionMpd} applies unless given others.
 *
 * @example
 * ```ts
 * sessionMpd(text, origin, { ...MPD_LIMITS, maxLength: 1024 * 1024 })
 * ```
 */
export const MPD_LIMITS: Readonly<MpdLimits> = Object.freeze({
  maxLength: 8 * 1024 * 1024,
  maxDepth: 32,
  maxAttributeLength: 64 * 1024,
  maxUrlLength: 4096,
  maxBases: 16,
})
