import type Hls from 'hls.js'

/**
 * The part of the page's `Hls` class this package uses: its default loader and load policies,
 * and its event and error names (types and details). Taken from the page rather than imported, so a page on
 * `hls.js/light` (or its own build) bundles hls.js once: this package has no runtime import of
 * hls.js at all.
 */
export type HlsClass = Pick<typeof Hls, 'DefaultConfig' | 'Events' | 'ErrorTypes' | 'ErrorDetails'>

/**
 * Throws unless `value` looks like hls.js's `Hls` class. A missing class is a TypeError at setup
 * rather than a second copy of hls.js in the bundle (an import fallback would bring it back).
 *
 * @example
 * ```ts
 * assertHlsClass(options.Hls, 'createTokenRefresh')
 * ```
 */
export function assertHlsClass(value: unknown, caller: string): asserts value is HlsClass {
  const statics = value as { DefaultConfig?: { loader?: unknown }; Events?: { ERROR?: unknown } }
  const isClass =
    typeof value === 'function' &&
    typeof statics.DefaultConfig?.loader === 'function' &&
    typeof statics.Events?.ERROR === 'string'
  if (isClass) return
  throw new TypeError(
    `${caller}: options.Hls is required, the class of 'hls.js' or 'hls.js/light' (createTokenRefresh({ Hls, getToken, … }))`,
  )
}
