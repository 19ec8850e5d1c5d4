// hls.js through ESM, as the package README shows it.
import Hls from 'hls.js'
import { playHlsjs } from './play-hlsjs.ts'

playHlsjs(Hls)
