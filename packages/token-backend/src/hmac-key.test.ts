import { sign, verify } from 'hono/jwt'
import { describe, expect, it } from 'vitest'
import { hmacKey } from './hmac-key.ts'

const SECRET = 'hmac-key-test-secret-0123456789'

describe('hmacKey', () => {
  it('is imported once per secret and algorithm', () => {
    expect(hmacKey(SECRET, 'HS256')).toBe(hmacKey(SECRET, 'HS256'))
    expect(hmacKey(SECRET, 'HS384')).not.toBe(hmacKey(SECRET, 'HS256'))
    expect(hmacKey(`${SECRET}-2`, 'HS256')).not.toBe(hmacKey(SECRET, 'HS256'))
  })

  it.each(['HS256', 'HS384', 'HS512'] as const)(
    'verifies and signs as the text secret does (%s)',
    async (alg) => {
      const payload = { sub: 'user-1', exp: 4_102_444_800 }
      const key = await hmacKey(SECRET, alg)
      expect(await verify(await sign(payload, SECRET, alg), key, alg)).toEqual(payload)
      expect(await sign(payload, key, alg)).toBe(await sign(payload, SECRET, alg))
      await expect(verify(await sign(payload, `${SECRET}-other`, alg), key, alg)).rejects.toThrow()
    },
  )
})
