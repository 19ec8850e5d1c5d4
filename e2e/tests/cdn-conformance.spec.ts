// The emulator answers exactly like nginx (the independent validator) on the same URLs.

import { signToken } from '@proj/signing'
import { expect, test } from '../support/browser-witness.ts'
import { CLIENT_ID, PORTS, SECRET } from '../support/stack.ts'

const now = Math.floor(Date.now() / 1000)
const sign = (expires: number, ip = '', video = 'demo') =>
  signToken({ clientId: CLIENT_ID, video, secret: SECRET, expires, ip })
const live = now + 600
const plain = sign(live)
const bound = sign(live, '127.0.0.1')
const lastChar = plain.at(-1) ?? 'A'
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const sibling = plain.slice(0, -1) + (alphabet[alphabet.indexOf(lastChar) ^ 1] ?? lastChar)

/** [case, host, path, expected status] */
const CASES: [string, 'plain' | 'ip', string, number][] = [
  ['valid VOD master', 'plain', `/videos/12345_demo/${plain}/${live}/master.m3u8`, 200],
  ['valid live playlist', 'plain', `/cmaf/12345_demo/${plain}/${live}/v0/index.m3u8`, 200],
  ['valid segment', 'plain', `/videos/12345_demo/${plain}/${live}/v0/seg_001.ts`, 200],
  ['valid key', 'plain', `/videos/12345_demo/${plain}/${live}/v1/key.bin`, 200],
  ['expired', 'plain', `/videos/12345_demo/${sign(now - 5)}/${now - 5}/master.m3u8`, 410],
  [
    'expired long ago',
    'plain',
    `/cmaf/12345_demo/${sign(1_700_000_000)}/1700000000/master.m3u8`,
    410,
  ],
  ['wrong token', 'plain', `/videos/12345_demo/AAAAAAAAAAAAAAAAAAAAAA/${live}/master.m3u8`, 403],
  [
    'wrong and expired',
    'plain',
    `/videos/12345_demo/AAAAAAAAAAAAAAAAAAAAAA/${now - 5}/master.m3u8`,
    403,
  ],
  ['malformed token', 'plain', `/videos/12345_demo/not*a*token/${live}/master.m3u8`, 403],
  ['too long token', 'plain', `/videos/12345_demo/${plain}AAAAAAAA/${live}/master.m3u8`, 403],
  ['token of another video', 'plain', `/videos/12345_other/${plain}/${live}/master.m3u8`, 403],
  ['expiry changed', 'plain', `/videos/12345_demo/${plain}/${live + 1}/master.m3u8`, 403],
  [
    'non-canonical last character',
    'plain',
    `/videos/12345_demo/${sibling}/${live}/master.m3u8`,
    200,
  ],
  ['IP token on the plain host', 'plain', `/videos/12345_demo/${bound}/${live}/master.m3u8`, 403],
  ['IP token, right IP', 'ip', `/videos/12345_demo/${bound}/${live}/master.m3u8`, 200],
  ['plain token on the IP host', 'ip', `/videos/12345_demo/${plain}/${live}/master.m3u8`, 403],
  [
    'token bound to another IP',
    'ip',
    `/videos/12345_demo/${sign(live, '10.0.0.1')}/${live}/master.m3u8`,
    403,
  ],
  [
    'IP token, expired',
    'ip',
    `/videos/12345_demo/${sign(now - 5, '127.0.0.1')}/${now - 5}/master.m3u8`,
    410,
  ],
  // paths as an attacker writes them: matched after decoding, never outside the video or media
  [
    'escape to another video',
    'plain',
    `/videos/12345_demo/${plain}/${live}/..%2fother%2fmaster.m3u8`,
    404,
  ],
  [
    'double-encoded traversal',
    'plain',
    `/cmaf/12345_demo/${plain}/${live}/..%252f..%252f..%252f..%252fetc%252fpasswd/index.m3u8`,
    404,
  ],
  // decoded once, these are no path of the video; an origin that parses URLs would read them as
  // "/" or ".." into another video's directory (the live one here)
  [
    'backslashes to another video',
    'plain',
    `/videos/12345_demo/${plain}/${live}/..%5c..%5clive%5c12345_demo%5cv0%5cindex.m3u8`,
    404,
  ],
  [
    'a double-encoded dot segment to another video',
    'plain',
    `/videos/12345_demo/${plain}/${live}/%252e%252e/%252e%252e/live/12345_demo/v0/index.m3u8`,
    404,
  ],
  [
    'tabs inside dot segments',
    'plain',
    `/videos/12345_demo/${plain}/${live}/.%09./.%09./live/12345_demo/v0/index.m3u8`,
    404,
  ],
  [
    'dot segment inside the video',
    'plain',
    `/videos/12345_demo/${plain}/${live}/v0/..%2fmaster.m3u8`,
    200,
  ],
]

test('the emulator and nginx answer the same status for every URL', async ({ request }) => {
  const results = await Promise.all(
    CASES.map(async ([name, host, path, expected]) => {
      const nginx = host === 'plain' ? PORTS.nginxPlain : PORTS.nginxIp
      const emulator = host === 'plain' ? PORTS.emulatorPlain : PORTS.emulatorIp
      const [a, b] = await Promise.all([
        request.get(`http://127.0.0.1:${nginx}${path}`),
        request.get(`http://127.0.0.1:${emulator}${path}`),
      ])
      return {
        name,
        expected,
        nginx: a.status(),
        emulator: b.status(),
        cors: [a, b].map((r) => r.headers()['access-control-allow-origin']),
      }
    }),
  )
  for (const result of results) {
    expect
      .soft(result, result.name)
      .toMatchObject({ nginx: result.expected, emulator: result.expected, cors: ['*', '*'] })
  }
})

test('both strip the pair and serve the same bytes from the origin', async ({ request }) => {
  for (const path of ['master.m3u8', 'v1/index.m3u8', 'v1/key.bin', 'v0/seg_003.ts']) {
    const url = (port: number) =>
      `http://127.0.0.1:${port}/videos/12345_demo/${plain}/${live}/${path}`
    const [a, b] = await Promise.all([
      request.get(url(PORTS.nginxPlain)),
      request.get(url(PORTS.emulatorPlain)),
    ])
    expect(Buffer.compare(await a.body(), await b.body()), path).toBe(0)
  }
})
