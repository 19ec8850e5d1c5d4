import { DurableObject } from 'cloudflare:workers'

/**
 * The Durable Object behind `durableSessionStore`: one instance per session (`session:<sid>`)
 * and one per viewer (`viewer:<sub>`), so no single object sees every request; one more
 * (`cdns`) keeps the CDNs the operator drained. Each keeps a few
 * keys in its own SQLite storage and deletes them all at an alarm once nothing can need them.
 * Export it from the worker's entry (`export { SessionRegistry } from '@proj/token-backend/session-registry'`).
 *
 * @example
 * ```jsonc
 * // wrangler.jsonc
 * "durable_objects": { "bindings": [{ "name": "SESSION_REGISTRY", "class_name": "SessionRegistry" }] },
 * "migrations": [{ "tag": "v1", "new_sqlite_classes": ["SessionRegistry"] }]
 * ```
 */
export class SessionRegistry extends DurableObject {
  /** Records `network`; false when it would be one more than `max`. */
  async admit(network: string, max: number, untilSeconds: number): Promise<boolean> {
    const networks = (await this.ctx.storage.get<string[]>('networks')) ?? []
    if (networks.includes(network)) return true
    if (networks.length >= max) return false
    await this.ctx.storage.put('networks', [...networks, network])
    await this.#keepUntil(untilSeconds)
    return true
  }

  /** When this session or viewer was revoked (Unix seconds), if it was. */
  async revokedAt(): Promise<number | undefined> {
    return this.ctx.storage.get<number>('revokedAt')
  }

  /** Revokes as of `atSeconds` (a later revocation moves it forward, never back). */
  async revoke(atSeconds: number, untilSeconds: number): Promise<void> {
    const before = (await this.ctx.storage.get<number>('revokedAt')) ?? 0
    await this.ctx.storage.put('revokedAt', Math.max(before, atSeconds))
    await this.#keepUntil(untilSeconds)
  }

  /** The CDNs drained by the operator (the `cdns` object only; kept until undrained). */
  async drainedCdns(): Promise<string[]> {
    return (await this.ctx.storage.get<string[]>('drained')) ?? []
  }

  /** Drains or undrains `cdn`. */
  async drainCdn(cdn: string, drained: boolean): Promise<void> {
    const before = (await this.drainedCdns()).filter((id) => id !== cdn)
    await this.ctx.storage.put('drained', drained ? [...before, cdn] : before)
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll()
  }

  async #keepUntil(untilSeconds: number) {
    const until = (untilSeconds + 60) * 1000
    const alarm = await this.ctx.storage.getAlarm()
    if (alarm === null || alarm < until) await this.ctx.storage.setAlarm(until)
  }
}
