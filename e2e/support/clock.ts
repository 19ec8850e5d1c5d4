import type { Page } from '@playwright/test'

/**
 * Makes the page's wall clock (`Date`) wrong by `offsetMs` from the first script on, and lets the
 * test change the error later with {@link setClockOffset}. Timers and `performance.now()` keep
 * real time, as on a machine whose system clock is wrong or has just jumped.
 *
 * Not Playwright's `page.clock`: its fake timers stop VHS from ever requesting a segment in this
 * Chromium (checked with the refresh off), so it cannot drive the video.js scenarios.
 */
export function skewClock(page: Page, offsetMs: number) {
  return page.addInitScript((initial: number) => {
    const RealDate = Date
    let offset = initial
    class SkewedDate extends RealDate {
      constructor(...args: []) {
        if (args.length === 0) super(RealDate.now() + offset)
        else super(...(args as unknown as [number]))
      }
      static override now() {
        return RealDate.now() + offset
      }
    }
    Object.assign(window, { Date: SkewedDate, __setClockOffset: (ms: number) => (offset = ms) })
  }, offsetMs)
}

/** Changes the page's clock error (see {@link skewClock}). */
export function setClockOffset(page: Page, offsetMs: number) {
  return page.evaluate(
    (ms) => (window as unknown as { __setClockOffset(ms: number): void }).__setClockOffset(ms),
    offsetMs,
  )
}
