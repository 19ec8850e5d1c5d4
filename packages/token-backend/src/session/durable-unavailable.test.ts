import { env, runInDurableObject } from 'cloudflare:test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { testEnv } from '../../test/helpers.ts'
import { asViewer, streamApp } from '../../test/streams.ts'
import { createTokenApp } from '../app.ts'
import { StoreUnavailableError } from '../store-unavailable.ts'
import { durableStreamStore, type StreamRegistryStub } from '../streams/durable-stream-store.ts'
import type { StreamRequest } from '../streams/stream-ledger.ts'
import { durableSessionStore, type SessionRegistryStub } from './durable-session-store.ts'
import { durableObjects } from './durable-unavailable.ts'
import type { SessionRegistry } from './session-registry.ts'

// The SessionRegistry Durable Object of test/wrangler.test.jsonc, in workerd, when it cannot
// answer: reset by a deploy, overloaded, out of reach. The stores must say "unavailable"
// (StoreUnavailableError: a 503, and what an isolate trusts plays on), as the Redis stores do,
// and never hide an error of the object's own code (a 500, logged).
const registry = (env as unknown as { SESSION_REGISTRY: DurableObjectNamespace<SessionRegistry> })
  .SESSION_REGISTRY
type Stub = SessionRegistryStub & StreamRegistryStub
const METHODS = [
  'admit',
  'revokedAt',
  'revoke',
  'drainedCdns',
  'drainCdn',
  'admitStream',
  'activeStreams',
  'endStream',
  'retractStream',
] as const

/** What workerd throws at the caller when an object is reset or out of reach. */
const outage = () => Object.assign(new Error('Network connection lost.'), { retryable: true })

/**
 * The real namespace, each call failing as `failure` says while it returns an error; a call of
 * the method `lost` runs on the object, then its answer is lost as in an outage.
 */
function flakyRegistry() {
  const state: {
    failure: (() => Error) | undefined
    lost: (typeof METHODS)[number] | undefined
  } = { failure: undefined, lost: undefined }
  const namespace = {
    getByName(name: string): Stub {
      const stub = registry.getByName(name) as unknown as Record<
        string,
        (...args: unknown[]) => Promise<unknown>
      >
      const calls = METHODS.map((method) => [
        method,
        async (...args: unknown[]) => {
          if (state.failure) throw state.failure()
          const answer = await stub[method]?.(...args)
          if (state.lost === method) throw outage()
          return answer
        },
      ])
      return Object.fromEntries(calls) as Stub
    },
  }
  return { namespace, state }
}

const quietLog = () => vi.spyOn(console, 'error').mockImplementation(() => undefined)
afterEach(() => vi.restoreAllMocks())

describe('durableSessionStore and durableStreamStore when the object cannot answer', () => {
  it('throw StoreUnavailableError for an outage, the cause kept, logged without flooding', async () => {
    const log = quietLog()
    const { namespace, state } = flakyRegistry()
    const sessions = durableSessionStore(namespace)
    const streams = durableStreamStore(namespace)
    const session = { sid: crypto.randomUUID(), sub: 'ann', iat: 1, exp: 2 }
    state.failure = outage
    const calls = [
      sessions.admitNetwork(session, '203.0.113.0/24', 2),
      sessions.isRevoked(session),
      sessions.revokeSession(session.sid, 2),
      sessions.revokeViewer('ann', 1, 2),
      sessions.drainedCdns?.(),
      sessions.drainCdn?.('b', true),
      streams.list('ann', Date.now()),
      streams.end('ann', undefined, Date.now()),
    ]
    for (const result of await Promise.allSettled(calls)) {
      const error = result.status === 'rejected' ? result.reason : undefined
      expect(error).toBeInstanceOf(StoreUnavailableError)
      expect((error as Error).cause).toMatchObject({ retryable: true })
    }
    // at most once a minute per isolate (the 503 itself sends no detail)
    expect(log.mock.calls.length).toBeLessThanOrEqual(1)
  })

  it('say unavailable for a real stub whose object was reset, and pass on errors of its own code', async () => {
    const log = quietLog()
    // a stub kept across a reset of its object is broken: workerd marks it `durableObjectReset`
    const name = `session:reset-${crypto.randomUUID()}`
    const kept = registry.getByName(name)
    await kept.revokedAt()
    await runInDurableObject(kept, (_, state) => state.abort('reset by a deploy')).catch(() => {})
    const broken = durableSessionStore({ getByName: () => kept })
    await expect(broken.isRevoked({ sid: 'x', iat: 1, exp: 2 })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    )
    // an error of the object's own code (workerd marks it `remote`): a 500, not an outage
    const { namespace, state } = flakyRegistry()
    state.failure = () =>
      Object.assign(new TypeError('The RPC receiver does not implement "missing".'), {
        remote: true,
      })
    await expect(
      durableSessionStore(namespace).isRevoked({ sid: 'y', iat: 1, exp: 2 }),
    ).rejects.toThrow(TypeError)
    // nor one on the caller's side (an argument that does not serialize, a binding to a class
    // that is no DurableObject): no `remote`, no outage either, a 500 that shows it
    state.failure = () => new TypeError('Could not serialize object of type "Function".')
    await expect(
      durableSessionStore(namespace).isRevoked({ sid: 'z', iat: 1, exp: 2 }),
    ).rejects.toThrow('Could not serialize')
    // marked retryable or overloaded by the runtime, it is an outage again
    state.failure = () =>
      Object.assign(new Error('Durable Object is overloaded.'), { remote: true, overloaded: true })
    await expect(durableStreamStore(namespace).list('ann', 0)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    )
    log.mockRestore()
  })
})

describe('durableObjects', () => {
  it('asks each object by name through askDurableObject, its stub taken inside the call', async () => {
    quietLog()
    const named: string[] = []
    const object = durableObjects({
      getByName(name: string) {
        named.push(name)
        if (name === 'gone') throw outage()
        return { ping: async () => `pong from ${name}` }
      },
    })
    expect(await object('a')((stub) => stub.ping())).toBe('pong from a')
    await expect(object('gone')((stub) => stub.ping())).rejects.toBeInstanceOf(
      StoreUnavailableError,
    )
    expect(named).toEqual(['a', 'gone'])
  })
})

describe('durableStreamStore, a start whose answer was lost in an outage', () => {
  const start = (newId: string, id?: string): StreamRequest => {
    const nowMs = Date.now()
    return {
      ...(id !== undefined && { id }),
      newId,
      lane: 'token',
      nowMs,
      untilMs: nowMs + 60_000,
      keepUntilMs: nowMs + 60_000,
      limit: 1,
      policy: 'reject-newest',
      mode: 'enforce',
    }
  }

  it('holds no slot: it is retracted, and admits nothing should it land again later', async () => {
    quietLog()
    const { namespace, state } = flakyRegistry()
    const streams = durableStreamStore(namespace)
    const sub = `viewer-${crypto.randomUUID()}`
    const lost = start('lost-stream-id-000000000')
    state.lost = 'admitStream'
    await expect(streams.admit(sub, lost)).rejects.toBeInstanceOf(StoreUnavailableError)
    state.lost = undefined
    expect(await streams.list(sub, Date.now())).toEqual([])
    // the same start running on the object after its retraction (a call still on its way)
    const late = await registry.getByName(`viewer:${sub}`).admitStream(lost)
    expect(late.kind).not.toBe('admitted')
    expect(await streams.list(sub, Date.now())).toEqual([])
    expect((await streams.admit(sub, start('next-stream-id-000000000'))).kind).toBe('admitted')
  })

  it('an object that said overloaded (the call never ran) is not asked again to retract', async () => {
    quietLog()
    const { namespace, state } = flakyRegistry()
    const getByName = vi.spyOn(namespace, 'getByName')
    const streams = durableStreamStore(namespace)
    const sub = `viewer-${crypto.randomUUID()}`
    state.failure = () =>
      Object.assign(new Error('Durable Object is overloaded.'), { overloaded: true })
    await expect(streams.admit(sub, start('refused-stream-id-000000'))).rejects.toBeInstanceOf(
      StoreUnavailableError,
    )
    expect(getByName).toHaveBeenCalledTimes(1)
  })

  it('a start under an id the client named is left alone: its retry renews it', async () => {
    quietLog()
    const { namespace, state } = flakyRegistry()
    const streams = durableStreamStore(namespace)
    const sub = `viewer-${crypto.randomUUID()}`
    const id = 'named-stream-id-00000000'
    state.lost = 'admitStream'
    await expect(streams.admit(sub, start(id, id))).rejects.toBeInstanceOf(StoreUnavailableError)
    state.lost = undefined
    expect((await streams.admit(sub, start(id, id))).kind).toBe('renewed')
  })
})

describe('the app on Workers while the SessionRegistry object cannot answer', () => {
  it('keeps a playing session playing and answers a new one 503 with Retry-After, not 500', async () => {
    quietLog()
    const { namespace, state } = flakyRegistry()
    const clock = { ms: Date.now() }
    const app = createTokenApp({ now: () => clock.ms, audit: () => {} })
    const bindings = { ...testEnv(), SESSION_REGISTRY: namespace }
    const from = (ip: string) => ({ headers: { 'x-real-ip': ip } })
    const leafOf = async () => {
      const issued = await app.request(
        'https://tokens.test/session?video=demo&type=vod',
        from('203.0.113.7'),
        bindings,
      )
      const { session_url } = await issued.json<{ session_url: string }>()
      return session_url.replace(/master\.m3u8$/, 'seg_001.ts')
    }
    const playing = await leafOf()
    const fresh = await leafOf()
    expect((await app.request(playing, from('203.0.113.7'), bindings)).status).toBe(302)

    state.failure = outage
    clock.ms += 5_000 // past the isolate's 1-s cache: the object is asked again
    expect((await app.request(playing, from('203.0.113.7'), bindings)).status).toBe(302)
    const refused = await app.request(fresh, from('203.0.113.7'), bindings)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(await refused.json()).toEqual({ error: 'shared state unavailable: retry after 1 s' })
    state.failure = undefined
    expect((await app.request(fresh, from('203.0.113.7'), bindings)).status).toBe(302)
  })

  it('keeps a stream it admitted refreshing and answers a new stream 503 (STREAM_LIMIT)', async () => {
    quietLog()
    const { namespace, state } = flakyRegistry()
    const { app, clock } = streamApp({ limit: 2 })
    const bindings = { SESSION_REGISTRY: namespace }
    const sub = `viewer-${crypto.randomUUID()}`
    const token = async (query = '') =>
      app.request(`http://token.test/token?video=demo${query}`, await asViewer(sub), bindings)
    const { stream } = await (await token()).json<{ stream: string }>()

    state.failure = outage
    clock.ms += 5_000
    expect((await token(`&stream=${stream}`)).status).toBe(200)
    const refused = await token()
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
  })
})
