import { describe, expect, it } from 'vitest'
import { CDN_FAILURES, cdnFailureOf, isTokenRefusal } from './cdn-failure.ts'

describe('isTokenRefusal', () => {
  it.each([
    [403, true],
    [410, true],
    [401, false],
    [404, false],
    [200, false],
    [undefined, false],
  ])('%s → %s', (status, refused) => {
    expect(isTokenRefusal(status)).toBe(refused)
  })
})

describe('cdnFailureOf', () => {
  it.each([
    [0, true, 'network'],
    [500, true, 'server-error'],
    [503, false, 'server-error'],
    [599, true, 'server-error'],
    [403, true, 'refused'],
    [410, true, 'refused'],
    [403, false, undefined],
    [410, false, undefined],
    [404, true, undefined],
    [200, true, undefined],
    [206, true, undefined],
    [600, true, undefined],
  ] as const)('%i with a fresh token %s → %s', (status, tokenFresh, failure) => {
    expect(cdnFailureOf(status, { tokenFresh })).toBe(failure)
  })

  it('answers only words of the vocabulary', () => {
    for (let status = 0; status < 700; status++)
      for (const tokenFresh of [true, false]) {
        const failure = cdnFailureOf(status, { tokenFresh })
        if (failure !== undefined) expect(CDN_FAILURES).toContain(failure)
      }
  })
})
