import app from '@proj/token-worker/worker'
import { loopRoute } from './workerd-loop.ts'

// The deployable token worker, plus the bench's loop route.
export default loopRoute(app)
export { SessionRegistry } from '@proj/token-worker/worker'
