import { sign } from 'hono/jwt'
import { createTokenApp, type TokenAppOptions } from '../src/app.ts'
import type { TokenConfigInput } from '../src/config.ts'
import type { StreamSettings } from '../src/streams/stream-settings.ts'

/** The viewer JWTs' shared secret in the stream tests. */
export const STREAM_JWT_SECRET = 'stream-tests-jwt-secret-0123456789'
/** The operator's token in the stream tests. */
export const STREAM_ADMIN = 'stream-tests-admin-token-of-32-chars!'

/** A configuration with JWTs and sessions, and stream limits as given. */
export function streamConfig(
  streams: Partial<StreamSettings> & { limit: number },
): TokenConfigInput {
  return {
    signing: {
      clientId: '12345',
      secretKey: 'stream-tests-secret',
      cdnDomain: 'cdn.test',
      cdnDomainIp: 'cdn-ip.test',
    },
    auth: { mode: 'jwt', secret: { key: STREAM_JWT_SECRET } },
    session: { secret: 'stream-tests-session-secret-of-32-chars', adminToken: STREAM_ADMIN },
    streams,
  }
}

/** An app with stream limits, its audit lines collected, on a clock the test moves. */
export function streamApp(
  streams: Partial<StreamSettings> & { limit: number },
  options: Omit<TokenAppOptions, 'config' | 'audit' | 'now'> & { startMs?: number } = {},
) {
  const clock = { ms: options.startMs ?? Date.now() }
  const lines: Array<Record<string, unknown>> = []
  const app = createTokenApp({
    ...options,
    config: streamConfig(streams),
    now: () => clock.ms,
    audit: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
  })
  return { app, clock, lines }
}

/**
 * A viewer JWT for `sub` (valid for a year of both the real clock and the tests' fixed one).
 *
 * @example
 * ```ts
 * const headers = { authorization: `Bearer ${await viewerJwt('ann')}` }
 * ```
 */
export function viewerJwt(sub: string | undefined, claims: Record<string, unknown> = {}) {
  const exp = Math.floor(Date.now() / 1000) + 365 * 86400
  return sign(
    { videos: '*', exp, ...(sub !== undefined && { sub }), ...claims },
    STREAM_JWT_SECRET,
    'HS256',
  )
}

/** Headers of a request by `sub`. */
export async function asViewer(sub: string | undefined, claims?: Record<string, unknown>) {
  return { headers: { authorization: `Bearer ${await viewerJwt(sub, claims)}` } }
}
