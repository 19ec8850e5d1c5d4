// hls.js/light (no EME, no subtitles, no alternate audio) through ESM: the bundle must hold hls.js
// once, the light build (e2e/adoption/prepare.ts reads the build's module list).
import Hls from 'hls.js/light'
import { playHlsjs } from './play-hlsjs.ts'

playHlsjs(Hls)
