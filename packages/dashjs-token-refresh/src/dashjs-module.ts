import type { MediaPlayerErrors, MediaPlayerEvents } from 'dashjs'

/**
 * The part of the page's `dashjs` module this package uses: the event and error names of its
 * `MediaPlayer`. Taken from the page rather than imported, so a page bundles dash.js once (and
 * may use a build of its own): this package has no runtime import of dash.js at all.
 */
export interface DashjsModule {
  MediaPlayer: {
    events: Pick<MediaPlayerEvents, 'ERROR' | 'FRAGMENT_LOADING_ABANDONED'>
    errors: Pick<
      MediaPlayerErrors,
      | 'DOWNLOAD_ERROR_ID_MANIFEST_CODE'
      | 'DOWNLOAD_ERROR_ID_CONTENT_CODE'
      | 'DOWNLOAD_ERROR_ID_INITIALIZATION_CODE'
    >
  }
}

/**
 * Throws unless `value` looks like the `dashjs` module (`import * as dashjs from 'dashjs'`, or the
 * script tag's `dashjs` global). A missing module is a TypeError at setup rather than a second
 * copy of dash.js in the bundle (an import fallback would bring it back).
 *
 * @example
 * ```ts
 * assertDashjs(options.dashjs, 'createTokenRefresh')
 * ```
 */
export function assertDashjs(value: unknown, caller: string): asserts value is DashjsModule {
  const factory = (value as { MediaPlayer?: unknown } | undefined)?.MediaPlayer
  const names = factory as Partial<DashjsModule['MediaPlayer']> | undefined
  const isDashjs =
    typeof factory === 'function' &&
    typeof names?.events?.ERROR === 'string' &&
    typeof names?.errors?.DOWNLOAD_ERROR_ID_CONTENT_CODE === 'number'
  if (isDashjs) return
  throw new TypeError(
    `${caller}: options.dashjs is required, the module of 'dashjs' (createTokenRefresh({ dashjs, getToken, … }))`,
  )
}
