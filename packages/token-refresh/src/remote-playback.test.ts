// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { offerRemotePlayback } from './remote-playback.ts'

const SESSION = 'https://tokens.example.com/s/demo/eyJ.e30.sig/master.m3u8'
const tick = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('offerRemotePlayback', () => {
  it('adds the session URL as an HLS <source> after the page’s own and allows remote playback', () => {
    const video = document.createElement('video')
    const own = document.createElement('source')
    own.src = 'blob:https://player.example.com/1234'
    video.append(own)
    video.disableRemotePlayback = true
    offerRemotePlayback(video, SESSION)
    const sources = [...video.querySelectorAll('source')]
    expect(sources.map((source) => source.getAttribute('src'))).toEqual([own.src, SESSION])
    expect(sources[1]?.getAttribute('type')).toBe('application/x-mpegURL')
    expect(video.disableRemotePlayback).toBe(false)
  })

  it('comes back when a player rebuilds the sources on attach (hls.js removes them) and leaves on withdraw', async () => {
    const video = document.createElement('video')
    const withdraw = offerRemotePlayback(video, SESSION)
    // what hls.js's BufferController does with ManagedMediaSource
    for (const source of [...video.querySelectorAll('source')]) source.remove()
    video.disableRemotePlayback = true
    const blob = document.createElement('source')
    blob.src = 'blob:https://player.example.com/5678'
    video.append(blob)
    await tick()
    expect(
      [...video.querySelectorAll('source')].map((source) => source.getAttribute('src')),
    ).toEqual([blob.src, SESSION])
    expect(video.disableRemotePlayback).toBe(false)
    withdraw()
    await tick()
    expect(video.querySelectorAll('source')).toHaveLength(1)
  })
})
