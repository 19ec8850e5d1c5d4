export { type CdnOptions, createCdn } from './cdn/cdn-app.ts'
export { VOD_MEDIA_DIR } from './media.ts'
export { livePlaylist, parseVodPlaylist } from './origin/live-playlist.ts'
export { createOrigin, type OriginOptions } from './origin/origin-app.ts'
