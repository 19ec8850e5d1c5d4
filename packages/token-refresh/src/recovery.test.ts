import { describe, expect, it } from 'vitest'
import { endsPlayback, TokenRejectedError } from './recovery.ts'
import { StreamLimitError } from './stream-limit.ts'

describe('endsPlayback', () => {
  it('is true for the give-up and the refused stream, false for what the refresher recovers from', () => {
    expect(endsPlayback(new TokenRejectedError(3))).toBe(true)
    expect(
      endsPlayback(
        new StreamLimitError('stream limit reached', { code: 'stream_limit', limit: 2 }),
      ),
    ).toBe(true)
    expect(endsPlayback(new Error('token backend answered 503'))).toBe(false)
    expect(endsPlayback(new TypeError('Failed to fetch'))).toBe(false)
    expect(endsPlayback({ name: 'TokenRejectedError' })).toBe(false) // not an Error
    expect(endsPlayback(undefined)).toBe(false)
  })

  it('knows them by name: a script-tag build’s give-up file has its own copy of the classes', () => {
    class CopiedTokenRejectedError extends Error {
      override name = 'TokenRejectedError'
    }
    const copy = new CopiedTokenRejectedError('the CDN rejected 3 tokens in a row')
    expect(copy).not.toBeInstanceOf(TokenRejectedError)
    expect(endsPlayback(copy)).toBe(true)
  })
})
