import app from '@proj/token-worker/worker'

// The deployable with its audit line silenced: GET /token's request path alone, for the edge
// bench to tell it from the cost of a log line under `wrangler dev`.
console.log = () => undefined
export default app
export { SessionRegistry } from '@proj/token-worker/worker'
