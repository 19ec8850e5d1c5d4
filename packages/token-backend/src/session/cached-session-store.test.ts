import { describe, expect, it } from 'vitest'
import { NOW_MS } from '../../test/helpers.ts'
import { StoreUnavailableError } from '../store-unavailable.ts'
import {
  cachedSessionStore,
  memorySessionStore,
  type SessionStore,
  STORE_OUTAGE_TRUST_MS,
  type StoredSession,
} from './session-store.ts'

/** A memory store that can be switched off, throwing `failure` then; a clock the test moves. */
function setup(failure: () => Error = () => new StoreUnavailableError('down'), capacity?: number) {
  let clock = NOW_MS
  const memory = memorySessionStore({}, () => clock)
  const state = { available: true, calls: 0 }
  const guard =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A) => {
      state.calls++
      return state.available ? call(...args) : Promise.reject(failure())
    }
  const inner: SessionStore = {
    admitNetwork: guard(memory.admitNetwork),
    isRevoked: guard(memory.isRevoked),
    revokeSession: guard(memory.revokeSession),
    revokeViewer: guard(memory.revokeViewer),
  }
  const store = cachedSessionStore(inner, { ttlMs: 1000, now: () => clock, capacity })
  return {
    store,
    memory,
    state,
    advance: (ms: number) => {
      clock += ms
    },
  }
}

const session = (sid: string): StoredSession => ({
  sid,
  iat: NOW_MS / 1000,
  exp: NOW_MS / 1000 + 3600,
})

describe('cachedSessionStore while its store is unavailable', () => {
  it('keeps a session seen not revoked playing for the outage trust past its cache, then fails closed', async () => {
    const { store, state, advance } = setup()
    const s = session('playing-1')
    expect(await store.isRevoked(s)).toBe(false)
    expect(await store.admitNetwork(s, '198.51.100.0/24', 2)).toBe(true)
    state.available = false
    advance(1000 + STORE_OUTAGE_TRUST_MS - 1)
    expect(await store.isRevoked(s)).toBe(false)
    expect(await store.admitNetwork(s, '198.51.100.0/24', 2)).toBe(true)
    advance(1)
    await expect(store.isRevoked(s)).rejects.toBeInstanceOf(StoreUnavailableError)
  })

  it('fails closed for what it does not know: a new network, a session never checked', async () => {
    const { store, state } = setup()
    const s = session('playing-2')
    expect(await store.isRevoked(s)).toBe(false)
    state.available = false
    await expect(store.admitNetwork(s, '203.0.113.0/24', 2)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    )
    await expect(store.isRevoked(session('unknown'))).rejects.toBeInstanceOf(StoreUnavailableError)
  })

  it('keeps a revoked session refused, however long the outage', async () => {
    const { store, memory, state, advance } = setup()
    const s = session('revoked-1')
    await memory.revokeSession(s.sid, s.exp)
    expect(await store.isRevoked(s)).toBe(true)
    state.available = false
    advance(10 * STORE_OUTAGE_TRUST_MS)
    expect(await store.isRevoked(s)).toBe(true)
  })

  it('counts the trust from the last answer, and asks again once the store is back', async () => {
    const { store, memory, state, advance } = setup()
    const s = session('playing-3')
    expect(await store.isRevoked(s)).toBe(false)
    state.available = false
    advance(2000)
    expect(await store.isRevoked(s)).toBe(false)
    // revoked elsewhere meanwhile: seen at the first answer after the outage
    await memory.revokeSession(s.sid, s.exp)
    state.available = true
    expect(await store.isRevoked(s)).toBe(true)
  })

  it('does not hide other errors: a bug is not an outage', async () => {
    const { store, state, advance } = setup(() => new TypeError('bug'))
    const s = session('playing-4')
    expect(await store.isRevoked(s)).toBe(false)
    state.available = false
    advance(2000)
    await expect(store.isRevoked(s)).rejects.toBeInstanceOf(TypeError)
  })
})

describe('cachedSessionStore under concurrent requests', () => {
  it("asks the store once for a session's requests that arrive while its answer is on the way", async () => {
    const { store, state } = setup()
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => store.isRevoked(session('a'))),
    )
    expect(answers).toEqual(Array(20).fill(false))
    expect(state.calls).toBe(1)
    // another session has its own question
    await Promise.all([store.isRevoked(session('b')), store.isRevoked(session('b'))])
    expect(state.calls).toBe(2)
  })

  it('neither keeps nor shares an answer asked for before a revocation through this instance', async () => {
    const memory = memorySessionStore({}, () => NOW_MS)
    // the store's first answer comes late: after the revocation was written
    let release = () => {}
    const late = new Promise<void>((resolve) => {
      release = resolve
    })
    let first = true
    const store = cachedSessionStore(
      {
        ...memory,
        isRevoked: async (claims) => {
          const answer = await memory.isRevoked(claims)
          if (first) {
            first = false
            await late
          }
          return answer
        },
      },
      // the positional form (deprecated) still reads the same
      1000,
      () => NOW_MS,
    )
    const before = store.isRevoked(session('a'))
    await store.revokeSession('a', NOW_MS / 1000 + 3600)
    // a request after the revocation does not join the question asked before it
    expect(await store.isRevoked(session('a'))).toBe(true)
    release()
    expect(await before).toBe(false)
    // ...and that late "not revoked" was not cached over the revocation
    expect(await store.isRevoked(session('a'))).toBe(true)
  })
})

describe('cachedSessionStore at capacity', () => {
  it('keeps the most recently used answers: one drops, the others are not asked again', async () => {
    const { store, state } = setup(undefined, 3)
    for (const sid of ['s1', 's2', 's3']) await store.isRevoked(session(sid))
    await store.isRevoked(session('s1')) // s1 is used again: s2 is now the least recent
    expect(state.calls).toBe(3)
    await store.isRevoked(session('s4'))
    expect(state.calls).toBe(4)
    // a clear-all would send every one of them to the store again
    for (const sid of ['s1', 's3', 's4']) await store.isRevoked(session(sid))
    expect(state.calls).toBe(4)
    await store.isRevoked(session('s2'))
    expect(state.calls).toBe(5)
  })

  it('keeps admitted networks the same way', async () => {
    const { store, state } = setup(undefined, 2)
    const s = session('n')
    for (const network of ['a', 'b', 'c']) await store.admitNetwork(s, network, 8)
    expect(state.calls).toBe(3)
    await store.admitNetwork(s, 'b', 8)
    await store.admitNetwork(s, 'c', 8)
    expect(state.calls).toBe(3)
  })
})
