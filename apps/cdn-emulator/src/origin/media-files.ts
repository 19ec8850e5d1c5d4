/**
 * Reading the files of one media directory, and nothing outside it. A path is a list of names
 * (never `..`, `.`, empty or holding a `/`), and the file it names must really be inside the
 * directory once symbolic links are followed: a link in `--media` to `/etc/passwd`, or to a folder
 * outside, is not served. The text of a joined path cannot tell that; `realpath` can.
 */
import { readFile, realpath } from 'node:fs/promises'
import { join, sep } from 'node:path'

/** Thrown for a path that is not a file inside the media directory (missing, or outside it). */
export class NotInMediaError extends Error {
  override readonly name = 'NotInMediaError'
}

// one file or folder name: what a URL segment must decode to before it names a file
const isName = (name: string) => name !== '' && name !== '.' && name !== '..' && !/[/\0]/.test(name)

/**
 * A reader of the files inside `mediaDir`: `read(names)` answers the bytes of
 * `mediaDir/names[0]/names[1]/…` when that is a file really inside the directory (symbolic links
 * followed, then checked), and rejects with {@link NotInMediaError} otherwise. The directory's own
 * real path is resolved once.
 *
 * @example
 * ```ts
 * const read = mediaReader('media/vod')
 * await read(['v0', 'seg_000.ts']) // Buffer
 * await read(['..', 'package.json']) // rejects: NotInMediaError
 * ```
 */
export function mediaReader(
  mediaDir: string,
): (names: readonly string[]) => Promise<Buffer<ArrayBuffer>> {
  // the prefix of every path inside; undefined when the directory itself is missing
  const root = realpath(mediaDir).then(
    (real) => (real.endsWith(sep) ? real : `${real}${sep}`),
    () => undefined,
  )
  return async function read(names) {
    const inside = await root
    if (inside === undefined || names.length === 0 || !names.every(isName))
      throw new NotInMediaError('not a file of the media directory')
    const real = await realpath(join(inside, ...names)).catch(() => undefined)
    // `real` is what the file is, wherever a link led: inside, or refused
    if (real === undefined || !real.startsWith(inside))
      throw new NotInMediaError('not a file of the media directory')
    return readFile(real).catch(() => {
      throw new NotInMediaError('not a readable file of the media directory')
    })
  }
}
