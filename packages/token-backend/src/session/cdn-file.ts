import { findTokenPair, TOKEN_PAIR_PATTERN } from '@proj/signing'

/**
 * The path of a URL below the session's video directory on the CDN, its `{token}/{expires}` pair
 * dropped: what the session calls that file (`v1/seg_004.ts`, `''` for the directory itself).
 * `undefined` for anything else: another host (http or https alike: the session hands out the
 * configured scheme), another video, another scheme (`data:`, `skd:`), and a reference that
 * climbed into the pair of `upstream`, the signed URL it was resolved against (`../v1/a.ts` from
 * the video's top folder ends in `…/{token}/v1/a.ts`: no file of the video, and rewritten it
 * would carry that token into the answer).
 *
 * @example
 * ```ts
 * const cdn = { cdnHosts: ['cdn.example.com'], directory: '/videos/12345_demo/' }
 * cdnFileRest(new URL('https://cdn.example.com/videos/12345_demo/tok123/1800000000/v1/a.ts'), cdn) // 'v1/a.ts'
 * cdnFileRest(new URL('https://cdn.example.com/videos/12345_other/v1/a.ts'), cdn)                  // undefined
 * ```
 */
export function cdnFileRest(
  url: URL,
  {
    cdnHosts,
    directory,
    upstream,
  }: { cdnHosts: readonly string[]; directory: string; upstream?: string },
): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
  if (!cdnHosts.includes(url.host) || !url.pathname.startsWith(directory)) return undefined
  const rest = url.pathname.slice(directory.length)
  // only a pair followed by more path: `…/tok123/1800000000` alone names a file of that name
  const pair = TOKEN_PAIR_PATTERN.exec(`/${rest}`)
  if (pair?.index === 1 && rest[pair[0].length] === '/') return rest.slice(pair[0].length + 1)
  const signed = upstream === undefined ? undefined : findTokenPair(upstream)
  return signed !== undefined && rest.startsWith(`${signed.token}/`) ? undefined : rest
}
