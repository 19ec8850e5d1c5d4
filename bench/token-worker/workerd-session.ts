import app from '@proj/token-worker/worker'

// The deployable token worker as the session bench runs it: the app and its Durable Object.
export { SessionRegistry } from '@proj/token-worker/worker'
export default app
