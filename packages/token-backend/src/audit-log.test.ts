import { describe, expect, it } from 'vitest'
import { batchedLines } from './audit-log.ts'

describe('batchedLines', () => {
  it('writes the lines of one turn in one write, in order, each ending with a newline', () => {
    const writes: string[] = []
    const scheduled: (() => void)[] = []
    const sink = batchedLines({ write: (text) => writes.push(text) }, (flush) => {
      scheduled.push(flush)
    })
    sink('{"n":1}')
    sink('{"n":2}')
    expect(writes).toEqual([])
    expect(scheduled).toHaveLength(1)
    scheduled[0]?.()
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n'])
    sink('{"n":3}')
    expect(scheduled).toHaveLength(2)
    sink.flush()
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n', '{"n":3}\n'])
    // the scheduled flush finds nothing left: no empty write
    scheduled[1]?.()
    expect(writes).toHaveLength(2)
  })

  it('flushes on the next macrotask by default', async () => {
    const writes: string[] = []
    const sink = batchedLines({ write: (text) => writes.push(text) })
    sink('a')
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(writes).toEqual(['a\n'])
  })
})
