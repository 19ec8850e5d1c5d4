import { describe, expect, it } from 'vitest'
import { isProtocolMessage } from './protocol.ts'

describe('isProtocolMessage', () => {
  it('takes this protocol’s messages only: other code may talk to the same worker', () => {
    expect(isProtocolMessage({ kind: 'token-refresh:forget', url: 'https://cdn.test/' })).toBe(true)
    for (const other of [{ kind: 'app:sync' }, {}, null, undefined, 'token-refresh:claim', 7])
      expect(isProtocolMessage(other)).toBe(false)
  })
})
