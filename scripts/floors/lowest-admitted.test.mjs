import { describe, expect, it } from 'vitest'
import { admittedFloors, lowestAdmitted } from './lowest-admitted.mjs'

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

  it.each([
    ['^4.11.2', [4, 11, 2]],
    ['^1.19.0 || ^2.0.0', [1, 19, 0]],
    ['^0.4.0', [0, 4, 0]],
  ])('peer range %s admits %j first', (range, lowest) => {
    expect(lowestAdmitted(range, 'peerDependencies.hono')).toEqual(lowest)
  })

  it('names the field of a range it cannot read', () => {
    expect(() => lowestAdmitted('^4 || ^5.0.0-0', 'peerDependencies.hono')).toThrow(
      'peerDependencies.hono "^4 || ^5.0.0-0": cannot read "^5.0.0-0"',
    )
  })
})

describe('admittedFloors', () => {
  it.each([
    [
      '^1.11.4 || ^2.0.0',
      [
        [1, 11, 4],
        [2, 0, 0],
      ],
    ],
    [
      '^6.0.0 || ^5.0.1',
      [
        [5, 0, 1],
        [6, 0, 0],
      ],
    ],
    ['^4.11.4', [[4, 11, 4]]],
  ])('%s: the floor of each alternative, lowest first', (range, floors) => {
    expect(admittedFloors(range, 'peerDependencies.x')).toEqual(floors)
  })
})
