import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { type AddressInfo, createServer } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ephemeralStart, freePort, listens, PORT_BLOCKS, portBlock, portSlot } from './free-port.ts'

const overlaps = (a: { from: number; to: number }, first: number, last: number) =>
  a.from <= last && first < a.to

describe('portBlock', () => {
  const slots = Array.from({ length: 2 * PORT_BLOCKS.workers + 1 }, (_, slot) => slot)

  it('keeps every block below the ephemeral range, apart, and clear of the fixed ports', () => {
    for (const below of [32768, 49152]) {
      const blocks = slots.map((slot) => portBlock(slot, below))
      for (const [i, block] of blocks.entries()) {
        expect(block.to - block.from).toBe(PORT_BLOCKS.size)
        expect(block.to).toBeLessThanOrEqual(below)
        for (const [first, last] of [...PORT_BLOCKS.reserved, [15173, 15174], [18391, 18393]])
          expect(overlaps(block, first, last), `${block.from}-${block.to} vs ${first}`).toBe(false)
        for (const other of blocks.slice(i + 1))
          expect(overlaps(block, other.from, other.to - 1)).toBe(false)
      }
    }
  })

  it("gives Playwright's workers the blocks e2e had: 500 ports each, down from the range", () => {
    expect(slots.slice(0, 8).map((slot) => portBlock(slot, 32768).to)).toEqual([
      32768, 32268, 31768, 31268, 30768, 30268, 29768, 29268,
    ])
  })

  it('refuses a range that leaves no room under it', () => {
    expect(() => portBlock(3, 2500)).toThrow('no block 3 below port 2500')
  })
})

describe('portSlot', () => {
  it('gives each runner its own blocks, and each of its parallel workers one', () => {
    expect(portSlot({ TEST_PARALLEL_INDEX: '0' })).toBe(0)
    expect(portSlot({ TEST_PARALLEL_INDEX: '9' })).toBe(1)
    expect(portSlot({ VITEST_POOL_ID: '1' })).toBe(8)
    expect(portSlot({ VITEST_POOL_ID: '2' })).toBe(9)
    expect(portSlot({})).toBe(16)
  })
})

describe('freePort', () => {
  const block = portBlock(portSlot(process.env), ephemeralStart())

  it("returns a port of this vitest worker's block, below the ephemeral range", async () => {
    expect(portSlot(process.env)).toBeGreaterThanOrEqual(8)
    const port = await freePort()
    expect(port).toBeGreaterThanOrEqual(block.from)
    expect(port).toBeLessThan(block.to)
    expect(port).toBeLessThan(ephemeralStart())
  })

  it('skips a port another listener holds, and hands out one a server can bind', async () => {
    // hold the port after the one handed out, the next it would try (or the first after it that
    // is free: other worktrees' vitest workers of the same index may hold some)
    const first = await freePort()
    const holder = createServer()
    for (let port = first + 1; !(await listens(holder, port)); port++);
    const held = (holder.address() as AddressInfo).port
    try {
      const next = await freePort()
      expect(next).not.toBe(held)
      const server = createServer().listen(next, '127.0.0.1')
      await once(server, 'listening')
      await new Promise((resolve) => server.close(resolve))
    } finally {
      await new Promise((resolve) => holder.close(resolve))
    }
  })

  it("gives a Playwright worker's process a port of that worker's block", async () => {
    const script = `import { freePort } from ${JSON.stringify(join(import.meta.dirname, 'free-port.ts'))}; console.log(await freePort())`
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script],
      { env: { PATH: process.env.PATH ?? '', TEST_PARALLEL_INDEX: '3' } },
    )
    const port = Number(stdout)
    const theirs = portBlock(3, ephemeralStart())
    expect(port).toBeGreaterThanOrEqual(theirs.from)
    expect(port).toBeLessThan(theirs.to)
    expect(overlaps(block, theirs.from, theirs.to - 1)).toBe(false)
  })
})
