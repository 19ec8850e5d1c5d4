import type { StoredSession } from '../src/session/session-store.ts'

/** Now, in Unix seconds (the stores' clock). */
export const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * A session as the stores see it: issued now, expiring in an hour, `more` on top.
 *
 * @example
 * ```ts
 * await store.isRevoked(storedSession('s-1', { sub: 'viewer-1' }))
 * ```
 */
export const storedSession = (sid: string, more: Partial<StoredSession> = {}): StoredSession => ({
  sid,
  iat: nowSeconds(),
  exp: nowSeconds() + 3600,
  ...more,
})
