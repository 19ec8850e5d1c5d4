import { durableObjects } from './durable-unavailable.ts'
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
 * location: longer than a leaf lives); the operator's CDN drains in one more (`cdns`). An object
 * that cannot answer (reset by a deploy, overloaded, out of reach) is a `StoreUnavailableError`
 * (`askDurableObject`): a 503, and the sessions an isolate trusts play through it.
 *
 * @example
 * ```ts
 * const store = durableSessionStore(env.SESSION_REGISTRY)
 * ```
 */
export function durableSessionStore(registry: SessionRegistryNamespace): SessionStore {
  const object = durableObjects(registry)
  return {
    admitNetwork: (session, network, max) =>
      object(`session:${session.sid}`)((stub) => stub.admit(network, max, session.exp)),
    async isRevoked({ sid, sub, iat }) {
      const [session, viewer] = await Promise.all([
        object(`session:${sid}`)((stub) => stub.revokedAt()),
        sub === undefined ? undefined : object(`viewer:${sub}`)((stub) => stub.revokedAt()),
      ])
      return session !== undefined || (viewer !== undefined && iat <= viewer)
    },
    revokeSession: (sid, until) => object(`session:${sid}`)((stub) => stub.revoke(0, until)),
    revokeViewer: (sub, at, until) => object(`viewer:${sub}`)((stub) => stub.revoke(at, until)),
    // the operator's drains: one small object for the whole deployment (read once a second per isolate)
    drainedCdns: () => object('cdns')((stub) => stub.drainedCdns()),
    drainCdn: (cdn, drained) => object('cdns')((stub) => stub.drainCdn(cdn, drained)),
  }
}
