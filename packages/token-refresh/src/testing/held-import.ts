/** What {@link heldImport} gives a test. */
export interface HeldImport {
  /** How many times the module was imported so far (asked for: it may still be held). */
  readonly loads: number
  /** For the module's mock factory: counts the import and waits until {@link open}. */
  arrival(): Promise<void>
  /** Lets the held imports through, and every later one at once. */
  open(): void
}

/**
 * A module import a test holds back, as a slow network would: the module's mock factory awaits
 * `arrival()` (which counts the import), and the test calls `open()` when the module may come.
 * Create it in `vi.hoisted`, which runs before the mocks are registered.
 *
 * @example
 * ```ts
 * const held = await vi.hoisted(async () => (await import('@proj/token-refresh/testing')).heldImport())
 * vi.mock('./after-failure.ts', async (importOriginal) => {
 *   await held.arrival()
 *   return importOriginal()
 * })
 * ```
 */
export function heldImport(): HeldImport {
  let loads = 0
  let open = () => undefined as unknown
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return {
    get loads() {
      return loads
    },
    arrival: async () => {
      loads++
      await opened
    },
    open: () => open(),
  }
}
