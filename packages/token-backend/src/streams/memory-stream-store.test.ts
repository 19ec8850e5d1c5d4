import { describe, expect, it } from 'vitest'
import { memoryStreamStore } from './stream-store.ts'
import { describeStreamStore } from './stream-store-conformance.test-suite.ts'

describeStreamStore('memoryStreamStore', {
  make: () => memoryStreamStore(),
  peers: { unavailable: 'memory is per process: a second instance has its own (use Redis)' },
})

describe('memoryStreamStore', () => {
  const request = (nowMs: number, newId: string) => ({
    newId,
    lane: 'token' as const,
    nowMs,
    untilMs: nowMs + 1000,
    keepUntilMs: nowMs + 1000,
    limit: 1,
    policy: 'reject-newest' as const,
    mode: 'enforce' as const,
  })

  it('forgets a viewer once nothing of theirs is needed, and stays within its capacity', async () => {
    const store = memoryStreamStore({ capacity: 2 })
    await store.admit('a', request(0, 'a1'))
    await store.admit('b', request(0, 'b1'))
    await expect(store.admit('c', request(500, 'c1'))).rejects.toThrow('stream ledger is full')
    expect(store.size).toBe(2)
    // a and b's leases are over: the sweep makes room
    expect((await store.admit('c', request(2000, 'c1'))).kind).toBe('admitted')
    expect(store.size).toBe(1)
    expect(await store.end('c', undefined, 3000)).toBe(0)
    expect(store.size).toBe(0)
  })
})
