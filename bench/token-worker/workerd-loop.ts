// Bench-only wrapper for a worker on workerd: `/__loop?n=N` answers N `GET /token` requests
// inside the isolate (no network; timed from outside, since workerd's clock stands still while
// code runs). Audit lines go nowhere, as in the Node in-process bench.
interface FetchWorker {
  fetch(request: Request, env: unknown, ctx: unknown): Response | Promise<Response>
}

console.log = () => undefined

export function loopRoute(app: FetchWorker): FetchWorker {
  return {
    async fetch(request, env, ctx) {
      const url = new URL(request.url)
      if (url.pathname !== '/__loop') return app.fetch(request, env, ctx)
      const n = Number(url.searchParams.get('n') ?? 1000)
      for (let i = 0; i < n; i++) {
        const response = await app.fetch(
          new Request('http://bench/token?video=demo&type=vod&expire=600', {
            headers: { 'cf-connecting-ip': '203.0.113.7' },
          }),
          env,
          ctx,
        )
        if (response.status !== 200)
          return new Response(`answered ${response.status}`, { status: 500 })
        await response.arrayBuffer()
      }
      return new Response('ok')
    },
  }
}
