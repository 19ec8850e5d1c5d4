// Hostile use of sessions against the running stack (wrangler dev, the real CDN): raw request
// lines that no fetch() would send, a session passed around networks, forged credentials.
import { connect } from 'node:net'
import { expect, test } from '../support/browser-witness.ts'
import { sessionUrl, uniqueVideo } from '../support/hls-clients.ts'
import { PORTS } from '../support/stack.ts'

/** One raw HTTP/1.1 request line to the token worker: the path goes out byte for byte. */
const raw = (path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; location: string | undefined; head: string }>((resolve, reject) => {
    const socket = connect(PORTS.tokenNginx, '127.0.0.1')
    let data = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk) => {
      data += chunk
      if (data.includes('\r\n\r\n')) socket.destroy()
    })
    socket.on('error', reject)
    socket.on('close', () => {
      const head = data.split('\r\n\r\n')[0] ?? ''
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        location: /\r\nlocation: ([^\r\n]*)/i.exec(head)?.[1],
        head,
      })
    })
    const lines = Object.entries({
      host: `127.0.0.1:${PORTS.tokenNginx}`,
      connection: 'close',
      ...headers,
    })
    socket.write(
      `GET ${path} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`,
    )
  })

test('hostile session paths: never a 5xx, never a redirect outside the video directory', async () => {
  const video = uniqueVideo('hostile')
  const session = new URL(await sessionUrl(video)).pathname.replace(/master\.m3u8$/, '')
  const attempts = [
    '../../../videos/12345_other/x.ts',
    '..%2f..%2fvideos%2f12345_other%2fx.ts',
    '%2e%2e/%2e%2e/key.bin',
    'v0/%2e%2e%2f%2e%2e%2fkey.bin',
    'v0/seg_000.ts%0d%0aSet-Cookie:%20x=1',
    'v0/seg_000.ts?%0d%0aX-Injected:%201',
    'v0//seg_000.ts',
    'v0/./seg_000.ts',
    'v0\\..\\..\\key.bin',
    `${'a/'.repeat(3000)}x.ts`,
    `v0/${'x'.repeat(20_000)}.ts`,
    'v0/seg_000.ts#../../x',
    'v0/%00.ts',
    'v0/seg_000.ts;/../../x',
  ]
  const answers = []
  for (const tail of attempts) {
    const answer = await raw(`${session}${tail}`)
    answers.push({ tail: tail.slice(0, 60), status: answer.status, location: answer.location })
    expect(answer.status, tail.slice(0, 60)).toBeGreaterThanOrEqual(200)
    expect(answer.status, tail.slice(0, 60)).toBeLessThan(500)
    expect(answer.head, tail.slice(0, 60)).not.toMatch(/\r\n(set-cookie|x-injected):/i)
    if (answer.location !== undefined)
      expect(new URL(answer.location).pathname, tail.slice(0, 60)).toMatch(
        new RegExp(`^/videos/12345_${video}/[\\w-]+/\\d+/(?:[\\w.-]+/)*[\\w.-]+$`),
      )
  }
  await test.info().attach('answers.json', { body: JSON.stringify(answers, null, 2) })
  // the plain request still works: the fuzz above was refused, not the session
  expect((await raw(`${session}v0/seg_000.ts`)).status).toBe(302)
})

test('one session from a second network is admitted, from a third refused; forged sessions refused', async () => {
  const issued = await sessionUrl(uniqueVideo('networks'), 'vod', {
    'x-forwarded-for': '203.0.113.7',
  })
  const path = new URL(issued).pathname.replace(/master\.m3u8$/, 'v0/seg_001.ts')
  const from = async (ip: string) => (await raw(path, { 'x-forwarded-for': ip })).status
  expect(await from('203.0.113.99')).toBe(302)
  expect(await from('198.51.100.20')).toBe(302)
  expect(await from('192.0.2.55')).toBe(403)
  expect(await from('198.51.100.21')).toBe(302)
  const [head = '', body = ''] = (path.split('/')[3] ?? '').split('.')
  const forged = path.replace(/\/s\/[^/]+\/[^/]+\//, `/s/other/${head}.${body}.AAAA/`)
  expect((await raw(forged, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(403)
})
