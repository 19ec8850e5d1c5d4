import { describe, expect, it } from 'vitest'
import { assertTokenRecord } from './token-record.ts'

const good = {
  token: 'abcdefgh',
  token_ip: 'ijklmnop',
  client_ip: '127.0.0.1',
  expires: 1795348820,
  url: 'https://cdn.test/videos/1_demo/abcdefgh/1795348820/master.m3u8',
  url_ip: 'https://cdn-ip.test/videos/1_demo/ijklmnop/1795348820/master.m3u8',
}

describe('assertTokenRecord', () => {
  it('accepts the 2.11 record as is', () => {
    expect(assertTokenRecord(good)).toBe(good)
  })

  it.each([
    [null, 'invalid "token": undefined'],
    ['text', 'invalid "token": undefined'],
    [{ ...good, token: '' }, 'invalid "token": ""'],
    [{ ...good, url_ip: undefined }, 'invalid "url_ip": undefined'],
    [{ ...good, expires: '1795348820' }, 'invalid "expires": "1795348820"'],
    [{ ...good, expires: 1.5 }, 'invalid "expires": 1.5'],
    [
      { ...good, url: 'https://cdn.test/videos/1_demo/master.m3u8' },
      'invalid "url": "https://cdn.test/videos/1_demo/master.m3u8"',
    ],
  ])('rejects %j', (value, message) => {
    expect(() => assertTokenRecord(value)).toThrow(message)
  })
})
