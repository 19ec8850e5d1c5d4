import { describe, expect, it } from 'vitest'
import { formatIso, parseDateTime } from './dates.ts'

describe('parseDateTime', () => {
  it.each([
    ['2026-11-20T10:15:30Z', Date.UTC(2026, 10, 20, 10, 15, 30)],
    ['2026-11-20 10:15:30+01:00', Date.UTC(2026, 10, 20, 9, 15, 30)],
    ['2026-11-20T10:15:30.123456-0230', Date.UTC(2026, 10, 20, 12, 45, 30, 123)],
    ['2026-11-20T10:15', Date.UTC(2026, 10, 20, 10, 15)],
    ['2024-02-29T23:59:59+23:59', Date.UTC(2024, 1, 29, 0, 0, 59)],
    ['2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
  ])('reads %j', (text, ms) => {
    expect(parseDateTime(text)).toBe(ms)
  })

  it('keeps years 0000–0099 as they are (Date.UTC maps them to 1900–1999)', () => {
    expect(formatIso(parseDateTime('0099-12-31T00:00:00Z') ?? 0)).toBe('0099-12-31T00:00:00.000Z')
    expect(formatIso(parseDateTime('0000-01-01', { dateOnly: true }) ?? 0)).toBe(
      '0000-01-01T00:00:00.000Z',
    )
  })

  it.each([
    '2026-11-23T10:99:99',
    '2026-11-23T10:61:00Z',
    '2026-11-23T10:00:60Z',
    '2026-11-23T24:00:00Z',
    '2026-11-23T10:46:46+99:99',
    '2026-11-23T10:46:46+24:00',
    '2026-11-23T10:46:46-05:60',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-13-10T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-11-23',
  ])('refuses %j instead of rolling it over', (text) => {
    expect(parseDateTime(text)).toBeUndefined()
  })

  it('takes a bare date only where allowed', () => {
    expect(parseDateTime('2026-11-23', { dateOnly: true })).toBe(Date.UTC(2026, 10, 23))
    expect(parseDateTime('2026-11-31', { dateOnly: true })).toBeUndefined()
  })
})
