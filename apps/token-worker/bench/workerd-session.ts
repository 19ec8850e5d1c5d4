import app from '../src/worker.ts'

// The deployable token worker as the session bench runs it: the app and its Durable Object.
export { SessionRegistry } from '../src/worker.ts'
export default app
