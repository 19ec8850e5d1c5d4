import { describe, expect, it } from 'vitest'
import { demoConfig, demoSearch, sessionRequestUrl, tokenRequestUrl } from './config.ts'
import { formatCountdown, statusLines } from './status-panel.ts'

const local = 'http://127.0.0.1:8787/token'

describe('demoSearch', () => {
  it('builds what demoConfig reads back', () => {
    const search = demoSearch({
      player: 'native',
      tokenUrl: 'http://127.0.0.1:18787/token',
      type: 'live',
      video: 'cam-1',
      mode: 'session',
      expire: 20,
      lead: 6,
      ipBound: true,
      clientIp: '127.0.0.1',
      refresh: false,
      buffer: 12,
      liveDelay: 10,
    })
    expect(demoConfig(`?${search}`, local)).toMatchObject({
      tokenUrl: 'http://127.0.0.1:18787/token',
      players: ['native'],
      type: 'live',
      video: 'cam-1',
      mode: 'session',
      expire: 20,
      refreshLeadSeconds: 6,
      ipBound: true,
      clientIp: '127.0.0.1',
      refresh: false,
      buffer: 12,
      liveDelay: 10,
    })
    expect(demoConfig(`?${demoSearch({ player: 'all', tokenUrl: local })}`, local)).toEqual(
      demoConfig('', local),
    )
  })
})

describe('sessionRequestUrl', () => {
  it('asks the same worker’s /session for the video and type', () => {
    expect(sessionRequestUrl(demoConfig('?type=live&video=cam-1', local))).toBe(
      'http://127.0.0.1:8787/session?video=cam-1&type=live',
    )
    expect(
      sessionRequestUrl(demoConfig('?token=https://tokens.example.com/api/token', local)),
    ).toBe('https://tokens.example.com/api/session?video=demo&type=vod')
  })
})

describe('demoConfig', () => {
  it('defaults to the local VOD with 60-second tokens and a 25 % lead', () => {
    expect(demoConfig('', local)).toEqual({
      tokenUrl: local,
      video: 'demo',
      type: 'vod',
      format: 'hls',
      expire: 60,
      refreshLeadSeconds: 15,
      ipBound: false,
      clientIp: undefined,
      players: ['videojs', 'hlsjs', 'shaka', 'native', 'session'],
      mode: 'auto',
      refresh: true,
      level: undefined,
      buffer: undefined,
      liveDelay: undefined,
    })
  })

  it('can show one player, without refresh, with an explicit client IP', () => {
    expect(demoConfig('?player=hlsjs&refresh=0&client_ip=127.0.0.1', local)).toMatchObject({
      players: ['hlsjs'],
      refresh: false,
      clientIp: '127.0.0.1',
    })
    expect(demoConfig('?mode=swap', local).mode).toBe('swap')
    expect(demoConfig('?mode=nonsense', local).mode).toBe('auto')
    expect(demoConfig('?level=0', local).level).toBe(0)
    expect(demoConfig('?level=x', local).level).toBeUndefined()
    expect(demoConfig('?buffer=10', local).buffer).toBe(10)
    expect(demoConfig('?buffer=0', local).buffer).toBeUndefined()
    expect(demoConfig('?buffer=lots', local).buffer).toBeUndefined()
    expect(tokenRequestUrl(demoConfig('?client_ip=127.0.0.1', local))).toContain(
      '&client_ip=127.0.0.1',
    )
  })

  it('reads the query string and ignores nonsense', () => {
    expect(demoConfig('?type=live&expire=20&lead=6&ip=1&video=cam1', local)).toMatchObject({
      type: 'live',
      expire: 20,
      refreshLeadSeconds: 6,
      ipBound: true,
      video: 'cam1',
    })
    expect(demoConfig('?expire=-5&lead=abc&type=other', local)).toMatchObject({
      type: 'vod',
      expire: 60,
      refreshLeadSeconds: 15,
    })
  })

  it('builds the token request', () => {
    expect(tokenRequestUrl(demoConfig('?expire=20', local))).toBe(
      'http://127.0.0.1:8787/token?video=demo&type=vod&expire=20',
    )
    expect(tokenRequestUrl(demoConfig('?expire=20&format=dash', local))).toBe(
      'http://127.0.0.1:8787/token?video=demo&type=vod&expire=20&format=dash',
    )
  })

  it('plays DASH with the players that play it: video.js, Shaka and dash.js', () => {
    expect(demoConfig('?format=dash', local)).toMatchObject({
      format: 'dash',
      players: ['videojs', 'shaka', 'dashjs'],
    })
    expect(demoConfig('?format=dash&player=hlsjs', local).players).toEqual([])
    expect(demoConfig('?player=dashjs', local).players).toEqual([])
    expect(demoConfig('?format=other', local).format).toBe('hls')
    const search = demoSearch({ player: 'dashjs', tokenUrl: local, format: 'dash' })
    expect(demoConfig(`?${search}`, local)).toMatchObject({ format: 'dash', players: ['dashjs'] })
  })
})

describe('status panel', () => {
  it('formats the countdown', () => {
    expect(formatCountdown(75.9)).toBe('1:15')
    expect(formatCountdown(0)).toBe('0:00')
    expect(formatCountdown(-3)).toBe('expired 0:03 ago')
  })

  it('shows the token the player uses', () => {
    const record = {
      token: 'plainTok',
      token_ip: 'boundTok',
      client_ip: '127.0.0.1',
      expires: 1_795_348_820,
      url: 'u',
      url_ip: 'v',
    }
    expect(statusLines(record, true, 3, 1_795_348_800_000)).toEqual([
      ['token', 'boundTok'],
      ['expires', '1795348820 (in 0:20)'],
      ['refreshes', '3'],
      ['client IP', '127.0.0.1'],
    ])
  })
})
