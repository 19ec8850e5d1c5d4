import { describe, expect, it, vi } from 'vitest'
import { type EventHandler, eventsOnDemand, onDemand } from './on-demand.ts'

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

/**
 * A module loaded on demand, as the tests drive it: each load is counted and waits until the
 * test answers it (`succeed()` or `fail()`); the handler it gives records what it is handed.
 */
const fakeModule = () => {
  const handled: string[] = []
  const answers: { resolve: (handler: EventHandler<string>) => void; reject: () => void }[] = []
  let stopped = 0
  const handler: EventHandler<string> = {
    handle: (event) => handled.push(event),
    stop: () => stopped++,
  }
  const load = () =>
    new Promise<EventHandler<string>>((resolve, reject) =>
      answers.push({ resolve, reject: () => reject(new TypeError('Failed to fetch')) }),
    )
  return {
    load,
    handled,
    get loads() {
      return answers.length
    },
    get stopped() {
      return stopped
    },
    succeed: async () => {
      answers.at(-1)?.resolve(handler)
      await settle()
    },
    fail: async () => {
      answers.at(-1)?.reject()
      await settle()
    },
  }
}

describe('onDemand', () => {
  it('imports once however often asked, and again after a failed import', async () => {
    let loads = 0
    let failing = true
    const need = onDemand(async () => {
      loads++
      if (failing) throw new TypeError('Failed to fetch')
      return { loaded: loads }
    })
    expect(loads).toBe(0) // nothing until asked
    await expect(need()).rejects.toThrow('Failed to fetch')
    failing = false
    expect(await need()).toEqual({ loaded: 2 }) // the next call tries again
    expect(await need()).toEqual({ loaded: 2 })
    expect(loads).toBe(2)
  })
})

describe('eventsOnDemand', () => {
  it('loads nothing while no event needs the handler, and what came before is dropped', () => {
    const module = fakeModule()
    const events = eventsOnDemand(module.load)
    events('tokenrefreshed', false)
    events('tokenrefreshed', false)
    expect(module.loads).toBe(0)
  })

  it('loads with the first event that needs it, then hands it every event since, in order', async () => {
    const module = fakeModule()
    const events = eventsOnDemand(module.load)
    events('ok', false)
    events('fatal', true)
    events('tokenrefreshed', false) // kept: the handler has a failure to act on
    events('fatal again', true)
    expect(module.loads).toBe(1) // one import for all of them
    expect(module.handled).toEqual([])
    await module.succeed()
    expect(module.handled).toEqual(['fatal', 'tokenrefreshed', 'fatal again'])
    events('later', false) // once in, at once
    expect(module.handled.at(-1)).toBe('later')
    expect(module.loads).toBe(1)
  })

  it('a failed import is tried again with the next event, nothing kept being lost', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const module = fakeModule()
    const events = eventsOnDemand(module.load)
    events('fatal', true)
    await module.fail() // the page's origin is unreachable
    expect(module.loads).toBe(1) // no retry by itself (no timer)
    events('tokenrefreshed', false)
    expect(module.loads).toBe(2)
    await module.fail()
    events('error', true)
    await module.succeed()
    expect(module.handled).toEqual(['fatal', 'tokenrefreshed', 'error'])
    // said once, not per failed try (a self-hosted copy that lacks the file says why it never loads)
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn).toHaveBeenCalledWith(
      '[token-refresh] a module loaded on demand failed:',
      expect.any(TypeError),
    )
    warn.mockRestore()
  })

  it('stop() before the module is in: it is stopped when it comes, and handed nothing', async () => {
    const module = fakeModule()
    const events = eventsOnDemand(module.load)
    events('fatal', true)
    events.stop()
    await module.succeed()
    expect(module.handled).toEqual([])
    expect(module.stopped).toBe(1)
    events('fatal', true)
    expect(module.loads).toBe(1)
  })

  it('stop() once the module is in stops its handler', async () => {
    const module = fakeModule()
    const events = eventsOnDemand(module.load)
    events('fatal', true)
    await module.succeed()
    events.stop()
    events('fatal', true)
    expect(module.stopped).toBe(1)
    expect(module.handled).toEqual(['fatal'])
  })
})
