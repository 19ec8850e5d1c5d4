import app from '../src/worker.ts'
import { loopRoute } from './workerd-loop.ts'

// The deployable token worker, plus the bench's loop route.
export default loopRoute(app)
export { SessionRegistry } from '../src/worker.ts'
