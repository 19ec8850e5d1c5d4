// What an adopter of hls.js/light writes: hls.js 1.x declares no types for its `light` entry
// (its exports map has none), and the light build has the full build's API minus features.
declare module 'hls.js/light' {
  export * from 'hls.js'
  export { default } from 'hls.js'
}
