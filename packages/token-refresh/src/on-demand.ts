// What a page needs only sometimes (the CDN lane with several CDNs, what runs after a failure)
// lives in modules loaded with `import()` when first needed: a page that never needs them never
// downloads them. A bundler can split such a module off only if nothing imports it statically,
// not even through an export the page does not use.

/**
 * `load`, called when first asked and shared by every later call, except that a failed import
 * is tried again at the next call: the page's origin may be unreachable for a while (a laptop
 * offline during the very outage that made the module needed).
 *
 * @example
 * ```ts
 * const lane = onDemand(() => import('./cdn-lane.ts'))
 * const { openCdnLane } = await lane() // one import, however often asked
 * ```
 */
export function onDemand<M>(load: () => Promise<M>): () => Promise<M> {
  let loading: Promise<M> | undefined
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined
      throw error
    }))
}

/** What {@link eventsOnDemand} loads: the handler of the events, and how it stops. */
export interface EventHandler<E> {
  handle(event: E): void
  stop(): void
}

/** The always-loaded side of {@link eventsOnDemand}: give it every event, then `stop()` it. */
export interface DeferredEvents<E> {
  /** An event; `starts`: one that needs the handler (the others matter only after one did). */
  (event: E, starts: boolean): void
  stop(): void
}

/**
 * Events handled by a module loaded on the first that needs it (a failure): the events before
 * that one change nothing there, so they are dropped; from that one on, every event is kept
 * until the module is in, then handed to it in order, and later ones at once. The handler thus
 * sees what it would have seen had it been loaded from the start. A failed import is tried
 * again with the next event, the kept ones still waiting.
 *
 * @example
 * ```ts
 * const events = eventsOnDemand(() => import('./after-failure.ts').then((m) => m.watch(hls)))
 * hls.on(Hls.Events.ERROR, (_, data) => events(data, data.fatal))
 * hls.once(Hls.Events.DESTROYING, () => events.stop())
 * ```
 */
export function eventsOnDemand<E>(load: () => Promise<EventHandler<E>>): DeferredEvents<E> {
  const need = onDemand(load)
  let handler: EventHandler<E> | undefined
  /** The events since the first that needed the handler, while it is not in. */
  let kept: E[] | undefined
  let stopped = false
  let warned = false
  const events = (event: E, starts: boolean) => {
    if (stopped) return
    if (handler) return handler.handle(event)
    if (!kept && !starts) return
    kept ??= []
    kept.push(event)
    need().then(
      (loaded) => {
        // the first of the calls waiting for this import hands over what was kept
        if (handler) return
        handler = loaded
        if (stopped) return loaded.stop()
        for (const one of kept?.splice(0) ?? []) loaded.handle(one)
      },
      // tried again with the next event; said once (a copy of a script-tag build missing a file)
      (error: unknown) => {
        if (!warned) console.warn('[token-refresh] a module loaded on demand failed:', error)
        warned = true
      },
    )
  }
  events.stop = () => {
    stopped = true
    handler?.stop()
  }
  return events
}
