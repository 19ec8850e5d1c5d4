// hls.js ships no declarations for its `light` entry (exports has no "types" for it): the same
// API as the full build, minus optional features.
declare module 'hls.js/light' {
  export * from 'hls.js'
  export { default } from 'hls.js'
}
