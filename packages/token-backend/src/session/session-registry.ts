import { DurableObject } from 'cloudflare:workers'
import * as ledger from '../streams/stream-ledger.ts'

/**
 * The Durable Object behind `durableSessionStore`: one instance per session (`session:<sid>`)
 * and one per viewer (`viewer:<sub>`), so no single object sees every request; one more
 * (`cdns`) keeps the CDNs the operator drained. A viewer's object also counts their active
 * streams (`durableStreamStore`): one object per viewer admits one request at a time, so a
 * limit is exact however many isolates ask. Each keeps a few
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

  /** Admits or renews one stream of this viewer (`admitStream` of the stream ledger). */
  async admitStream(request: ledger.StreamRequest): Promise<ledger.StreamVerdict> {
    // no await between the read and the write but storage's own: the input gate keeps every
    // other request of this viewer out meanwhile, so the check and the record are one step
    const { state, verdict } = ledger.admitStream(await this.#streams(), request)
    // a refusal changes nothing: no write
    if (verdict.kind === 'renewed' || verdict.kind === 'admitted') await this.#saveStreams(state)
    return verdict
  }

  /** This viewer's active streams at `nowMs`, oldest first. */
  async activeStreams(nowMs: number): Promise<ledger.StreamLease[]> {
    return ledger.pruneStreams(await this.#streams(), nowMs).streams
  }

  /** Ends one stream of this viewer (`id`) or all; how many were active. */
  async endStream(id: string | undefined, nowMs: number): Promise<number> {
    const { state, ended } = ledger.endStreams(await this.#streams(), id, nowMs)
    if (ended > 0) await this.#saveStreams(state)
    return ended
  }

  /** Retracts a new stream of this viewer whose start was answered 503 (`retractStream`). */
  async retractStream(id: string, untilMs: number, nowMs: number): Promise<number> {
    const { state, retracted } = ledger.retractStream(await this.#streams(), id, untilMs, nowMs)
    // a lease dropped or the id remembered: a write (nothing, once the lease would have lapsed)
    if (retracted > 0 || untilMs > nowMs) await this.#saveStreams(state)
    return retracted
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll()
  }

  async #streams(): Promise<ledger.ViewerStreams> {
    return (await this.ctx.storage.get<ledger.ViewerStreams>('streams')) ?? ledger.NO_STREAMS
  }

  async #saveStreams(state: ledger.ViewerStreams) {
    await this.ctx.storage.put('streams', state)
    await this.#keepUntil(Math.ceil(ledger.keptUntil(state) / 1000))
  }

  async #keepUntil(untilSeconds: number) {
    // workerd takes no alarm after 2189 and throws after the write: a record written before
    // leases were capped (LATEST_LEASE_MS) would fail every later write of its viewer
    const until = Math.min((untilSeconds + 60) * 1000, ledger.LATEST_LEASE_MS + 60_000)
    const alarm = await this.ctx.storage.getAlarm()
    if (alarm === null || alarm < until) await this.ctx.storage.setAlarm(until)
  }
}
