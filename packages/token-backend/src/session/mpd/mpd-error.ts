import { HTTPException } from 'hono/http-exception'

/** Why an MPD was refused. */
export type MpdProblem =
  | 'size'
  | 'depth'
  | 'attribute'
  | 'url'
  | 'doctype'
  | 'syntax'
  | 'not-mpd'
  | 'bases'
  | 'unservable'

/**
 * The MPD the CDN answered cannot be served under the session: too large or too deep, not
 * well-formed XML, a DOCTYPE (entities are never expanded, nothing is ever fetched), not an MPD,
 * or a URL of the video that no reference under the session can name. An `HTTPException` of
 * status 502 (the upstream answered something the session cannot serve): the app's `onError`
 * answers it as `{"error": message}` like every other failure.
 *
 * @example
 * ```ts
 * try {
 *   sessionMpd(text, origin)
 * } catch (error) {
 *   if (error instanceof MpdError) console.warn(error.problem, error.message)
 *   throw error
 * }
 * ```
 */
export class MpdError extends HTTPException {
  readonly problem: MpdProblem

  constructor(problem: MpdProblem, detail: string) {
    super(502, { message: `the CDN's MPD cannot be served: ${detail}` })
    this.name = 'MpdError'
    this.problem = problem
  }
}
