import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { signedText, signToken, toBase64Url } from './token.ts'

// Vectors computed with `openssl md5 -binary | base64 | tr '+/' '-_' | tr -d '='`.
describe('signToken', () => {
  it('signs the plain token over text ending with "_"', () => {
    const input = { clientId: '12345', video: 'demo', secret: 's3cr3t', expires: 1767225600 }
    expect(signedText(input)).toBe('12345_demo_s3cr3t_1767225600_')
    expect(signToken(input)).toBe('jyv09hQm4Wakp-plYMraMQ')
  })

  it('signs the IP-bound token with the IP as the last part', () => {
    const input = {
      clientId: '12345',
      video: 'demo',
      secret: 's3cr3t',
      expires: 1767225600,
      ip: '203.0.113.7',
    }
    expect(signToken(input)).toBe('cGpYIL9A5Xq3zQcRK9u-Ug')
  })

  it('hashes the UTF-8 encoding of non-ASCII text', () => {
    expect(signToken({ clientId: '7', video: 'vidéo', secret: 'ключ', expires: 1767225600 })).toBe(
      'm8djBLtbhUzxixQsXUPf1A',
    )
  })

  it('matches an independent MD5 (node:crypto) on 2,000 generated inputs', () => {
    const reference = (text: string) => createHash('md5').update(text, 'utf8').digest('base64url')
    fc.assert(
      fc.property(
        fc.stringMatching(/^\d{1,12}$/),
        fc.string({ minLength: 1, maxLength: 128, unit: 'grapheme' }),
        fc.string({ maxLength: 64, unit: 'binary' }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.option(fc.oneof(fc.ipV4(), fc.ipV6()), { nil: undefined }),
        (clientId, video, secret, expires, ip) => {
          const token = signToken({ clientId, video, secret, expires, ip })
          expect(token).toBe(reference(`${clientId}_${video}_${secret}_${expires}_${ip ?? ''}`))
          expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/)
        },
      ),
      { numRuns: 2000 },
    )
  })
})

describe('toBase64Url', () => {
  it('replaces + and / and strips padding', () => {
    expect(toBase64Url('\xfb\xff')).toBe('-_8')
    expect(btoa('\xfb\xff')).toBe('+/8=')
  })
})
