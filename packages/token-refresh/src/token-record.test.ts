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
    [null, 'got object'],
    ['text', 'got string'],
    [{ ...good, token: '' }, '"token" must be a non-empty string'],
    [{ ...good, url_ip: undefined }, '"url_ip" must be a non-empty string'],
    [{ ...good, expires: '1795348820' }, '"expires" must be an integer'],
    [{ ...good, expires: 1.5 }, '"expires" must be an integer'],
    [
      { ...good, url: 'https://cdn.test/videos/1_demo/master.m3u8' },
      '"url" carries no {token}/{expires} pair',
    ],
  ])('rejects %j: %s', (value, message) => {
    expect(() => assertTokenRecord(value)).toThrow(message)
  })
})
