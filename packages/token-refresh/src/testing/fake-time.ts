import type { Clock, TimerHandle, Timers } from '../types.ts'

/** A manual clock and timer queue, for deterministic tests of anything that takes `Clock`/`Timers`. */
export interface FakeTime {
  clock: Clock
  timers: Timers
  /** Timers armed and not yet fired or cleared. */
  readonly pending: number
  /** Moves the clock without firing timers: a sleeping laptop or a frozen background tab. */
  jump(ms: number): void
  /** Moves the clock by `ms`, firing due timers in order and letting promises settle after each. */
  advance(ms: number): Promise<void>
}

const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

/**
 * Creates a fake clock whose timers fire only through `advance`.
 *
 * @example
 * ```ts
 * const time = fakeTime()
 * const refresher = await TokenRefresher.create({ ...options, clock: time.clock, timers: time.timers })
 * await time.advance(60_000)
 * ```
 */
export function fakeTime(start = Date.UTC(2026, 10, 22, 12)): FakeTime {
  let now = start
  let sequence = 0
  const queue = new Map<number, { at: number; callback: () => void }>()
  return {
    clock: { now: () => now },
    timers: {
      set: (callback, ms) => {
        queue.set(++sequence, { at: now + Math.max(0, ms), callback })
        return sequence as unknown as TimerHandle
      },
      clear: (handle) => {
        queue.delete(handle as unknown as number)
      },
    },
    get pending() {
      return queue.size
    },
    jump(ms) {
      now += ms
    },
    async advance(ms) {
      const end = now + ms
      await settle()
      for (;;) {
        let next: [number, { at: number; callback: () => void }] | undefined
        for (const entry of queue) if (!next || entry[1].at < next[1].at) next = entry
        if (!next || next[1].at > end) break
        queue.delete(next[0])
        now = Math.max(now, next[1].at)
        next[1].callback()
        await settle()
      }
      now = end
      await settle()
    },
  }
}
