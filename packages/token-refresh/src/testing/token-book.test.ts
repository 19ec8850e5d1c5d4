import { describe, expect, it } from 'vitest'
import { fakeTime } from './fake-time.ts'
import { tokenBook } from './token-book.ts'

const url = (token: string, expires: number) =>
  `https://cdn.test/videos/12345_demo/${token}/${expires}/master.m3u8`

describe('tokenBook', () => {
  it('answers like secure_link: 403 unknown or mismatched pair, 410 expired or revoked, else 200', async () => {
    const time = fakeTime()
    const book = tokenBook(time.clock)
    const expires = Math.floor(time.clock.now() / 1000) + 10
    expect(book.verdict(url('tok0001plain', expires))).toBe(403)
    book.issue('tok0001plain', expires)
    expect(book.verdict(url('tok0001plain', expires))).toBe(200)
    expect(book.verdict(url('tok0001plain', expires + 1))).toBe(403)
    expect(book.verdict('https://cdn.test/videos/12345_demo/master.m3u8')).toBe(403)
    await time.advance(expires * 1000 - time.clock.now())
    expect(book.verdict(url('tok0001plain', expires))).toBe(410)
  })

  it('revoke and rejectAll', () => {
    const time = fakeTime()
    const book = tokenBook(time.clock)
    const expires = Math.floor(time.clock.now() / 1000) + 10
    book.issue('tok0001plain', expires)
    book.issue('tok0002plain', expires)
    book.revoke('tok0001plain')
    expect(book.verdict(url('tok0001plain', expires))).toBe(410)
    book.rejectAll()
    expect(book.verdict(url('tok0002plain', expires))).toBe(403)
  })
})
