import { sparkMd5Digest } from '@proj/signing'
import { describe, expect, it } from 'vitest'
import { independentToken } from '../test/helpers.ts'

// The worker signs with spark-md5 (faster on workerd than its native digests, BENCHMARKS.md):
// here, inside workerd, it must agree with workerd's own MD5 on any text.
describe('spark-md5 on workerd', () => {
  it('gives the same digest as crypto.subtle MD5 for 500 texts of every kind', async () => {
    let seed = 42
    const random = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
      return seed / 2 ** 32
    }
    const alphabets = [
      [0x20, 0x7e],
      [0xa0, 0x7ff],
      [0x800, 0xd7ff],
      [0x1f300, 0x1faff],
    ] as const
    for (let n = 0; n < 500; n++) {
      let text = ''
      for (let i = Math.floor(random() * 200); i > 0; i--) {
        const [low, high] = alphabets[Math.floor(random() * alphabets.length)] ?? [0x20, 0x7e]
        text += String.fromCodePoint(low + Math.floor(random() * (high - low)))
      }
      expect(sparkMd5Digest(text), text).toBe(await independentToken(text))
    }
  })
})
