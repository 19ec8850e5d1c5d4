import { describe, expect, it } from 'vitest'
import { cdnFileRest } from './cdn-file.ts'

const cdn = {
  cdnHosts: ['cdn.example.com', 'cdn.example.com:8443'],
  directory: '/videos/12345_demo/',
}
const rest = (url: string) => cdnFileRest(new URL(url), cdn)

describe('cdnFileRest', () => {
  it.each([
    ['https://cdn.example.com/videos/12345_demo/Tok3n_x/1800000030/v1/seg_004.ts', 'v1/seg_004.ts'],
    ['http://cdn.example.com/videos/12345_demo/v1/seg_004.ts?x=1', 'v1/seg_004.ts'],
    ['https://cdn.example.com:8443/videos/12345_demo/Tok3n_x/1800000030/', ''],
    ['https://cdn.example.com/videos/12345_demo/', ''],
    // a pair with nothing after it names a file of that name; one further down is a folder
    ['https://cdn.example.com/videos/12345_demo/Tok3n_x/1800000030', 'Tok3n_x/1800000030'],
    [
      'https://cdn.example.com/videos/12345_demo/v1/Tok3n_x/1800000030/a.ts',
      'v1/Tok3n_x/1800000030/a.ts',
    ],
  ])('%s is %j', (url, expected) => {
    expect(rest(url)).toBe(expected)
  })

  it.each([
    'https://other.example.com/videos/12345_demo/v1/a.ts',
    'https://cdn.example.com:8080/videos/12345_demo/v1/a.ts',
    'https://cdn.example.com/videos/12345_other/Tok3n_x/1800000030/a.ts',
    'https://cdn.example.com/videos/12345_demo',
    'data:video/mp4;base64,AAAA',
    'skd://cdn.example.com/videos/12345_demo/key',
  ])('%s is not the video’s', (url) => {
    expect(rest(url)).toBeUndefined()
  })

  it('refuses a path that climbed into the pair of the URL it was resolved against', () => {
    const upstream = 'https://cdn.example.com/videos/12345_demo/Tok3n_x/1800000030/climb.m3u8'
    const climbed = (reference: string) =>
      cdnFileRest(new URL(reference, upstream), { ...cdn, upstream })
    // `..` from the top folder eats the expiry: the rest would start with the token
    expect(climbed('../v1/seg_000.ts')).toBeUndefined()
    // inside the pair, a pair of its own, or no pair at all: the video's files
    expect(climbed('v1/seg_000.ts')).toBe('v1/seg_000.ts')
    expect(climbed('/videos/12345_demo/Other_1/1800000099/v1/a.ts')).toBe('v1/a.ts')
    expect(climbed('/videos/12345_demo/v1/a.ts')).toBe('v1/a.ts')
    // the upstream's own pair as a file name would write its token into the body too
    expect(climbed('../../Tok3n_x/1800000030')).toBeUndefined()
  })
})
