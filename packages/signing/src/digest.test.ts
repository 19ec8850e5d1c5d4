import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hexToBase64Url, sparkMd5Digest } from './digest.ts'
import { nodeMd5Digest } from './node-digest.ts'
import { createTokenRecord } from './record.ts'

const reference = (text: string) => createHash('md5').update(text, 'utf8').digest('base64url')

describe('hexToBase64Url', () => {
  it('encodes 16 bytes as 22 url-safe characters without padding', () => {
    expect(hexToBase64Url('8f2bf4f61426e166a4a7ea6560cada31')).toBe('jyv09hQm4Wakp-plYMraMQ')
    expect(hexToBase64Url('00'.repeat(16))).toBe('AAAAAAAAAAAAAAAAAAAAAA')
    expect(hexToBase64Url('ff'.repeat(16))).toBe('_____________________w')
  })

  it('agrees with Buffer on any 16 bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const buffer = Buffer.from(bytes)
        expect(hexToBase64Url(buffer.toString('hex'))).toBe(buffer.toString('base64url'))
      }),
      { numRuns: 1000 },
    )
  })
})

describe('the two digests', () => {
  it('give the same token as an independent MD5 for any text, non-ASCII included', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: 'grapheme' }), (text) => {
        const expected = reference(text)
        expect(sparkMd5Digest(text)).toBe(expected)
        expect(nodeMd5Digest(text)).toBe(expected)
      }),
      { numRuns: 2000 },
    )
  })

  it('sign identical records', () => {
    const config = {
      clientId: '12345',
      secretKey: 'ключ-s3cr3t',
      cdnDomain: 'cdn.example.com',
      cdnDomainIp: 'cdn-ip.example.com',
    }
    for (const clientIp of ['203.0.113.7', '2001:db8::1', '::ffff:1.2.3.4']) {
      const params = { video: 'demo_vidéo'.replace('é', 'e'), type: 'live', expire: 600, clientIp }
      const portable = createTokenRecord(config, params, { nowSeconds: 1_767_225_600 })
      const native = createTokenRecord(config, params, {
        nowSeconds: 1_767_225_600,
        digest: nodeMd5Digest,
      })
      expect(native).toEqual(portable)
    }
  })
})
