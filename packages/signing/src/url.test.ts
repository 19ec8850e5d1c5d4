import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findTokenPair, hasTokenPair, replaceTokenPair, videoScopeOf } from './url.ts'

const pair = { token: 'NEWtok_-9', expires: 1767229200 }

describe('findTokenPair', () => {
  it('finds the pair in master, media playlist and segment URLs', () => {
    expect(
      findTokenPair('https://cdn.example.com/videos/12345_demo/Ab3xYz9_-Q/1767225600/master.m3u8'),
    ).toEqual({
      token: 'Ab3xYz9_-Q',
      expires: 1767225600,
    })
    expect(findTokenPair('/cmaf/1_live/abcdef/1767225600/v1/seg_003.ts')).toEqual({
      token: 'abcdef',
      expires: 1767225600,
    })
    expect(findTokenPair('https://h/videos/1_x/abcdef/1767225600')).toEqual({
      token: 'abcdef',
      expires: 1767225600,
    })
  })

  it('accepts timestamps past May 2033, where the spec pattern "1\\d{9,}" would stop matching', () => {
    expect(findTokenPair('/videos/1_x/abcdef/2100000000/master.m3u8')?.expires).toBe(2100000000)
  })

  it.each([
    '/videos/1_x/abcde/1767225600/master.m3u8', // token too short
    '/videos/1_x/abcdef/176722560/master.m3u8', // 9 digits
    '/videos/1_x/abcdef/0767225600/master.m3u8', // leading zero
    '/videos/1_x/abc.def/1767225600/master.m3u8', // not base64url
    '/videos/1_x/abcdef/1767225600x/master.m3u8', // not a whole segment
    '/videos/1_x/xabcdef/1767225600.ts', // not a whole segment
    '/videos/1_x/master.m3u8?t=abcdef/1767225600/', // only in the query
  ])('finds no pair in %j', (url) => {
    expect(findTokenPair(url)).toBeUndefined()
    expect(hasTokenPair(url)).toBe(false)
  })
})

describe('replaceTokenPair', () => {
  it('replaces any pair, not only the original one', () => {
    expect(
      replaceTokenPair('https://cdn/videos/1_demo/OLDtok1/1767225600/v0/index.m3u8', pair),
    ).toBe('https://cdn/videos/1_demo/NEWtok_-9/1767229200/v0/index.m3u8')
    expect(
      replaceTokenPair('https://cdn/videos/1_demo/OTHERtok/1767227400/v1/seg_007.ts', pair),
    ).toBe('https://cdn/videos/1_demo/NEWtok_-9/1767229200/v1/seg_007.ts')
  })

  it('keeps the query string and fragment untouched', () => {
    expect(
      replaceTokenPair('/videos/1_d/OLDtok1/1767225600/key.bin?x=abcdef/1767225600/#f', pair),
    ).toBe('/videos/1_d/NEWtok_-9/1767229200/key.bin?x=abcdef/1767225600/#f')
  })

  it('returns a URL without a pair unchanged', () => {
    expect(replaceTokenPair('https://other.example.com/logo.png', pair)).toBe(
      'https://other.example.com/logo.png',
    )
  })
})

describe('the @proj/signing/url entry point', () => {
  it('imports nothing, so player bundles never pull in MD5 or IP parsing code', () => {
    const source = readFileSync(join(import.meta.dirname, 'url.ts'), 'utf8')
    expect(source).not.toMatch(/^\s*import\s/m)
    expect(source).not.toMatch(/\bimport\(/)
  })
})

describe('videoScopeOf', () => {
  it('is the host and the directory before the pair, whatever the pair and the file', () => {
    const scope = {
      origin: 'https://cdn.example.com:8443',
      host: 'cdn.example.com:8443',
      directory: '/videos/1_demo/',
    }
    expect(
      videoScopeOf('https://cdn.example.com:8443/videos/1_demo/Ab3xYz9_-Q/1767225600/master.m3u8'),
    ).toEqual(scope)
    expect(
      videoScopeOf('https://cdn.example.com:8443/videos/1_demo/ZZZZZZZ/1867225600/v0/a.ts?x=1'),
    ).toEqual(scope)
  })

  it('is undefined without a pair or for a relative URL', () => {
    expect(videoScopeOf('https://cdn.example.com/videos/1_demo/master.m3u8')).toBeUndefined()
    expect(videoScopeOf('/videos/1_demo/Ab3xYz9_-Q/1767225600/master.m3u8')).toBeUndefined()
  })
})
