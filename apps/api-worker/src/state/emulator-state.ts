import { DurableObject } from 'cloudflare:workers'
import type { Generation } from '../data/dataset.ts'

export type { Generation }

/** A cloud task as stored; its state is derived from the clock (see the tasks handler). */
export interface StoredTask {
  id: string
  task_type: string
  project_id: number
  region_id: number
  user_id: number
  client_id: number
  created_on: number
  /** `finished` or `error`: how the task ends. */
  outcome: 'finished' | 'error'
  request: string
  /**
   * What a FINISHED task shows in `created_resources`. When absent (a GPU cluster task), the
   * cluster and its servers, derived from the request.
   */
  created_resources?: Record<string, string[]>
}

/** One request as the journal keeps it (never a credential). */
export interface JournalEntry {
  id: string
  at: number
  method: string
  path: string
  query: string
  status: number
  duration_ms: number
  principal: string | null
}

const JOURNAL_LIMIT = 1000

/**
 * The emulator's mutable state, one instance for the whole deployment (`idFromName('emulator')`),
 * so tasks, the request journal, rate limits and the current seed agree across isolates. SQLite
 * storage keeps it across evictions.
 *
 * @example
 * ```ts
 * const state = env.STATE.get(env.STATE.idFromName('emulator'))
 * const { seed, epoch } = await state.generation(42)
 * ```
 */
export class EmulatorState extends DurableObject<Cloudflare.Env> {
  private readonly sql: SqlStorage

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env)
    this.sql = ctx.storage.sql
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS hits (key TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS hits_key_at ON hits (key, at);
    `)
  }

  /** The current generation; the first call fixes it from `defaultSeed` and the current time. */
  generation(defaultSeed: number): Generation {
    const row = this.sql
      .exec<{ value: string }>(`SELECT value FROM meta WHERE key = 'generation'`)
      .toArray()[0]
    if (row) return JSON.parse(row.value) as Generation
    return this.reset(defaultSeed)
  }

  /** Starts over: a new seed and epoch, no tasks, no journal, no rate-limit history. */
  reset(seed: number): Generation {
    const generation: Generation = { seed, epoch: Date.now() }
    this.sql.exec('DELETE FROM tasks')
    this.sql.exec('DELETE FROM journal')
    this.sql.exec('DELETE FROM hits')
    this.sql.exec(
      `INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?)`,
      JSON.stringify(generation),
    )
    return generation
  }

  createTask(task: StoredTask): void {
    this.sql.exec('INSERT INTO tasks (id, body) VALUES (?, ?)', task.id, JSON.stringify(task))
  }

  getTask(id: string): StoredTask | null {
    const row = this.sql
      .exec<{ body: string }>('SELECT body FROM tasks WHERE id = ?', id)
      .toArray()[0]
    return row ? (JSON.parse(row.body) as StoredTask) : null
  }

  record(entry: JournalEntry): void {
    this.sql.exec('INSERT INTO journal (body) VALUES (?)', JSON.stringify(entry))
    this.sql.exec(
      'DELETE FROM journal WHERE seq <= (SELECT MAX(seq) FROM journal) - ?',
      JOURNAL_LIMIT,
    )
  }

  /** Newest first. */
  journal(limit: number): { total: number; entries: JournalEntry[] } {
    const total = this.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM journal').one().n
    const rows = this.sql
      .exec<{ body: string }>('SELECT body FROM journal ORDER BY seq DESC LIMIT ?', limit)
      .toArray()
    return { total, entries: rows.map((row) => JSON.parse(row.body) as JournalEntry) }
  }

  clearJournal(): void {
    this.sql.exec('DELETE FROM journal')
  }

  /**
   * A sliding-window rate limit: records the hit when allowed.
   * @returns whether it is allowed, and when not, seconds until the oldest hit leaves the window.
   */
  hit(
    key: string,
    limit: number,
    windowMs: number,
  ): { allowed: boolean; retryAfterSeconds: number } {
    const now = Date.now()
    this.sql.exec('DELETE FROM hits WHERE key = ? AND at <= ?', key, now - windowMs)
    const hits = this.sql
      .exec<{ at: number }>('SELECT at FROM hits WHERE key = ? ORDER BY at', key)
      .toArray()
    if (hits.length >= limit) {
      const oldest = hits[0]?.at ?? now
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)),
      }
    }
    this.sql.exec('INSERT INTO hits (key, at) VALUES (?, ?)', key, now)
    return { allowed: true, retryAfterSeconds: 0 }
  }
}
