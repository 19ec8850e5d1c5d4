import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { TokenRecord } from '../types.ts'
import { type FakeTime, fakeTime } from './fake-time.ts'
import { type TwoCdns, twoTinyCdns } from './two-cdns.ts'

let time: FakeTime
let cdns: TwoCdns
let record: TokenRecord
beforeEach(async () => {
  time = fakeTime()
  cdns = await twoTinyCdns(time)
  record = await cdns.getToken()
})
afterEach(() => cdns.close())

const entry = (id: string) => {
  const found = record.cdns?.find((cdn) => cdn.id === id)
  if (!found) throw new Error(`no cdn ${id} in the record`)
  return found
}
const statusOf = async (url: string) => (await fetch(url)).status

describe('twoTinyCdns', () => {
  it('issues each CDN its own pair on its own host, the primary fields being a’s', () => {
    const a = entry('a')
    const b = entry('b')
    expect(a.url).toBe(
      `http://${cdns.a.host}/videos/12345_demo/tok0001aplain/${record.expires}/master.m3u8`,
    )
    expect(b.url).toBe(
      `http://${cdns.b.host}/videos/12345_demo/tok0001bplain/${record.expires}/master.m3u8`,
    )
    expect([record.url, record.token]).toEqual([a.url, 'tok0001aplain'])
  })

  it('each CDN accepts only the tokens signed for it, like two secrets', async () => {
    const onB = entry('a').url.replace(cdns.a.host, cdns.b.host)
    expect(await statusOf(entry('a').url)).toBe(200)
    expect(await statusOf(onB)).toBe(403)
    expect(await statusOf(entry('b').url)).toBe(200)
    expect(cdns.hits()).toEqual([
      'a tok0001aplain 200',
      'b tok0001aplain 403',
      'b tok0001bplain 200',
    ])
  })

  it('injects a status, then answers normally again', async () => {
    cdns.fault(cdns.a, 503)
    expect(await statusOf(entry('a').url)).toBe(503)
    cdns.fault(cdns.a, undefined)
    expect(await statusOf(entry('a').url)).toBe(200)
    expect(await statusOf(entry('b').url)).toBe(200)
  })

  it('hangs until close(), which still ends both servers', async () => {
    cdns.hang(cdns.a)
    const hanging = fetch(entry('a').url).then(
      (response) => response.status,
      () => 'cut',
    )
    const early = await Promise.race([
      hanging,
      new Promise((resolve) => setTimeout(() => resolve('no answer'), 200)),
    ])
    expect(early).toBe('no answer')
    expect(await statusOf(entry('b').url)).toBe(200)
    await cdns.close()
    expect(await hanging).toBe('cut')
  })
})
