import app from '@proj/token-worker/worker'
import { sessionMpd } from '../../packages/token-backend/src/session/mpd/session-mpd.ts'

// The token worker as its bundle will be once the session lane rewrites MPDs (issue 32): the
// deployable app, and the MPD rewriter reachable from its fetch (so nothing of it is shaken out).
// The rewriter is imported from its file until @proj/token-backend exports it.
export { SessionRegistry } from '@proj/token-worker/worker'
export default {
  fetch(request: Request, env: Record<string, string>, ctx: ExecutionContext) {
    if (!request.url.endsWith('.mpd')) return app.fetch(request, env, ctx)
    const upstream = new URL(request.url)
    return new Response(
      sessionMpd('<MPD/>', {
        upstream: upstream.href,
        cdnHosts: [upstream.host],
        directory: '/',
        rest: upstream.pathname.slice(1),
      }),
    )
  },
}
