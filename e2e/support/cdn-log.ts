// The CDN's own view: nginx's access log (format "timed" in nginx/nginx.conf.template).
import { readFileSync } from 'node:fs'
import { NGINX_ACCESS_LOG } from './stack.ts'

/** One request as nginx logged it. */
export interface CdnRequest {
  /** Milliseconds since the epoch. */
  at: number
  status: number
  method: string
  path: string
  /** The `{expires}` of the URL's token pair. */
  expires: number
}

const LINE = /^(\d+\.\d+) (\d{3}) (\S+) "([^"]*)"$/
const EXPIRES = /^\/(?:videos|cmaf)\/[^/]+\/[^/]+\/(\d+)\//

/**
 * The requests nginx logged for one video (each spec plays its own video name, so parallel
 * specs do not see each other's requests).
 *
 * @example
 * ```ts
 * const requests = cdnRequests('ffmpeg-session-1234')
 * ```
 *
 * `log` is another nginx's access log in the same format (the multi-CDN spec's own CDNs).
 */
export function cdnRequests(video: string, log: string = NGINX_ACCESS_LOG): CdnRequest[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .flatMap((line) => {
      const match = LINE.exec(line)
      if (!match) return []
      const [, msec = '0', status = '0', method = '', path = ''] = match
      if (!path.includes(`/12345_${video}/`)) return []
      return [
        {
          at: Math.round(Number(msec) * 1000),
          status: Number(status),
          method,
          path,
          expires: Number(EXPIRES.exec(path)?.[1] ?? 0),
        },
      ]
    })
}
