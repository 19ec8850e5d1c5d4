import { describe, expect, it } from 'vitest'
import { lowestAdmitted } from './check-node-floor.mjs'

describe('lowestAdmitted', () => {
  it.each([
    ['>=20', [20, 0, 0]],
    ['>=20.12', [20, 12, 0]],
    ['>= 20.12.1', [20, 12, 1]],
    ['^20.19.0 || >=22.12.0', [20, 19, 0]],
    ['>=22.12.0 || ^20.19', [20, 19, 0]],
    ['~18.17', [18, 17, 0]],
    ['20.x', [20, 0, 0]],
    ['>=20.12 <25', [20, 12, 0]],
    ['v22.1.2', [22, 1, 2]],
  ])('%s admits %j first', (range, lowest) => {
    expect(lowestAdmitted(range)).toEqual(lowest)
  })

  it.each([['<25'], ['*'], ['>20'], ['>=20 >=22'], ['lts']])('refuses %s', (range) => {
    expect(() => lowestAdmitted(range)).toThrow(`engines.node "${range}"`)
  })
})
