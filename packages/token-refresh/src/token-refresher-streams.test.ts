import { afterEach, describe, expect, it, vi } from 'vitest'
import { StreamLimitError } from './stream-limit.ts'
import { fakeTime, fakeTokenBackend, testRefreshOptions } from './testing/index.ts'
import { createTokenPeers } from './token-peers.ts'
import { TokenRefresher } from './token-refresher.ts'
import type { TokenRecord } from './types.ts'

/** A refresher on a fake backend that limits streams: lifetime 20 s, refreshed every 14 s. */
const setup = async (options: { getToken?: 'context' | 'no-context' } = {}) => {
  const time = fakeTime()
  const backend = fakeTokenBackend({ clock: time.clock, streams: true })
  const onError = vi.fn()
  const getToken =
    options.getToken === 'no-context'
      ? () => backend.getToken()
      : (context: { stream?: string }) => backend.getToken(context)
  const refresher = await TokenRefresher.create({
    ...testRefreshOptions(time, getToken),
    onError,
  })
  return { time, backend, refresher, onError }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('the stream of a playback', () => {
  it('is proposed with the first token, then handed back to getToken with every refresh, so the backend renews one stream', async () => {
    const { time, backend, refresher } = await setup()
    const id = refresher.record.stream as string
    // the refresher's own random id, which the backend adopted
    expect(id).toMatch(/^[0-9a-f]{32}$/)
    await time.advance(14_000 * 3)
    expect(backend.calls).toBe(4)
    // each call with its timeout's signal (tokenTimeoutMs)
    const signal = expect.any(AbortSignal)
    expect(backend.contexts).toEqual([
      { stream: id, proposed: true, signal },
      { stream: id, signal },
      { stream: id, signal },
      { stream: id, signal },
    ])
  })

  it('each refresher proposes its own id', async () => {
    const [one, two] = await Promise.all([setup(), setup()])
    expect(one.refresher.record.stream).not.toBe(two.refresher.record.stream)
  })

  it('a backend that names its own ids is followed, and one without stream limits is sent nothing more', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock })
    const refresher = await TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    expect(refresher.record.stream).toBeUndefined()
    await time.advance(14_000)
    const signal = expect.any(AbortSignal)
    expect(backend.contexts).toEqual([
      { stream: expect.any(String), proposed: true, signal },
      { signal },
    ])
  })

  it('a getToken that takes no context still works: each refresh a new stream, one warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const { time, backend, refresher } = await setup({ getToken: 'no-context' })
    await time.advance(14_000 * 2)
    expect(backend.calls).toBe(3)
    expect(refresher.record.stream).toBe('stream-3')
    expect(backend.contexts).toEqual([{}, {}, {}])
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/getToken ignores its context/)
  })

  it('a getToken with a context is not warned about', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const { time } = await setup()
    await time.advance(14_000 * 2)
    expect(warn).not.toHaveBeenCalled()
  })
})

describe.each(['stream_limit', 'stream_ended'] as const)('a refresh refused with %s', (code) => {
  it('is reported once as a StreamLimitError, never retried, and the refresher gives up', async () => {
    const { time, backend, refresher, onError } = await setup()
    const errors: Error[] = []
    refresher.addEventListener('error', ({ detail }) => errors.push(detail))
    backend.refuseStreams(code)
    await time.advance(14_000)
    expect(backend.calls).toBe(2)
    expect(onError).toHaveBeenCalledTimes(1)
    const error = onError.mock.calls[0]?.[0]
    expect(error).toBeInstanceOf(StreamLimitError)
    expect(error).toMatchObject({ code, status: 409 })
    expect(errors).toEqual([error])
    expect(refresher.rejected).toBe(true)
    // no retry, no planned refresh, no refresh on demand
    await time.advance(120_000)
    expect(refresher.rewrite(refresher.url)).toBe(refresher.url)
    await expect(refresher.refresh()).rejects.toBe(error)
    expect(backend.calls).toBe(2)
    expect(time.pending).toBe(0)
    expect(onError).toHaveBeenCalledTimes(1)
    // nor any recovery: a refused request of the expired token is not retried
    expect(refresher.recover(refresher.url)).toBe(false)
  })

  it('a request after expiry goes out at once instead of waiting for a token that will not come', async () => {
    const { time, backend, refresher } = await setup()
    backend.refuseStreams(code)
    await time.advance(14_000)
    await time.advance(10_000)
    expect(refresher.expired).toBe(true)
    const url = refresher.url
    // with the fake timers, a held request would wait until they are advanced
    await expect(refresher.prepare(url)).resolves.toBe(url)
  })
})

describe('a refused stream', () => {
  it('takes no record from a peer of the same video', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, streams: true })
    const peers = createTokenPeers()
    const options = { ...testRefreshOptions(time, backend.getToken), peers }
    const refused = await TokenRefresher.create(options)
    const other = await TokenRefresher.create(options)
    backend.refuseStreams('stream_ended')
    await refused.refresh().catch(() => undefined)
    const later: TokenRecord = { ...other.record, expires: other.record.expires + 60 }
    peers.share(later, other)
    expect(refused.record).not.toBe(later)
    expect(refused.refreshCount).toBe(0)
  })

  it('refused at the first token: create rejects with the StreamLimitError', async () => {
    const time = fakeTime()
    const backend = fakeTokenBackend({ clock: time.clock, streams: true })
    backend.refuseStreams('stream_limit')
    const creating = TokenRefresher.create(testRefreshOptions(time, backend.getToken))
    await expect(creating).rejects.toMatchObject({ name: 'StreamLimitError', limit: 2 })
  })
})
