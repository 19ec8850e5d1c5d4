import type { SessionStore } from './session-store.ts'

/** The RPC surface of `SessionRegistry` the store uses (no import of `cloudflare:workers` here). */
export interface SessionRegistryStub {
  admit(network: string, max: number, untilSeconds: number): Promise<boolean>
  revokedAt(): Promise<number | undefined>
  revoke(atSeconds: number, untilSeconds: number): Promise<void>
  drainedCdns(): Promise<string[]>
  drainCdn(cdn: string, drained: boolean): Promise<void>
}

/** The `SESSION_REGISTRY` Durable Object namespace binding, as far as the store needs it. */
export interface SessionRegistryNamespace {
  getByName(name: string): SessionRegistryStub
}

/**
 * The {@link SessionStore} on Workers: a `SessionRegistry` Durable Object per session and per
 * viewer (strongly consistent, unlike KV, whose changes take up to a minute to reach every
 * location: longer than a leaf lives); the operator's CDN drains in one more (`cdns`).
 *
 * @example
 * ```ts
 * const store = durableSessionStore(env.SESSION_REGISTRY)
 * ```
 */
export function durableSessionStore(registry: SessionRegistryNamespace): SessionStore {
  return {
    admitNetwork: (session, network, max) =>
      registry.getByName(`session:${session.sid}`).admit(network, max, session.exp),
    async isRevoked({ sid, sub, iat }) {
      const [session, viewer] = await Promise.all([
        registry.getByName(`session:${sid}`).revokedAt(),
        sub === undefined ? undefined : registry.getByName(`viewer:${sub}`).revokedAt(),
      ])
      return session !== undefined || (viewer !== undefined && iat <= viewer)
    },
    revokeSession: (sid, until) => registry.getByName(`session:${sid}`).revoke(0, until),
    revokeViewer: (sub, at, until) => registry.getByName(`viewer:${sub}`).revoke(at, until),
    // the operator's drains: one small object for the whole deployment (read once a second per isolate)
    drainedCdns: () => registry.getByName('cdns').drainedCdns(),
    drainCdn: (cdn, drained) => registry.getByName('cdns').drainCdn(cdn, drained),
  }
}
