import { serveTokenApp } from '@proj/token-backend/node'

// The `stream-limits` benchmark's server: the token worker's Node entry twice in one process,
// the same variables, limits off on PORT and on (STREAM_LIMIT=PAIR_STREAM_LIMIT) on PORT_ON.
// Two processes of identical code differed by up to 15 % in CPU per request on this machine
// (heap and code layout); one process serving both settings, loaded one at a time, compares
// the settings rather than the processes.
const { PORT, PORT_ON, PAIR_STREAM_LIMIT, ...env } = process.env
serveTokenApp(
  { env: { ...env, STREAM_LIMIT: PAIR_STREAM_LIMIT }, port: Number(PORT_ON), signals: false },
  () => serveTokenApp({ env, port: Number(PORT), signals: false }), // PORT answers: both do
)
process.on('SIGTERM', () => process.exit(0))
