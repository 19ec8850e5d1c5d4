// The lowest version a package.json range admits: what the floors check installs (the oldest
// Node of `engines.node`, the oldest release of each peer dependency) to prove the range true.

/**
 * The lowest version each alternative (`||`) of a range admits, lowest first, as
 * `[major, minor, patch]`: `^1.11.4 || ^2.0.0` has two floors, 1.11.4 and 2.0.0. Understands what
 * package.json ranges use: `>=`, `^`, `~`, `=`, bare and partial versions (`20`, `20.12`,
 * `20.x`), spaces between comparators and `||`; an upper bound (`<25`) does not lower it.
 *
 * @param {string} range
 * @param {string} [field] what the range is, for the error: `engines.node`, `peerDependencies.hono`
 * @returns {[number, number, number][]}
 * @throws {Error} for a range without a lower bound (`<25`, `*`) or one it cannot read.
 * @example admittedFloors('^1.11.4 || ^2.0.0') // [[1, 11, 4], [2, 0, 0]]
 */
export function admittedFloors(range, field = 'engines.node') {
  return range
    .split('||')
    .map((alternative) => {
      const bounds = alternative
        .trim()
        // ">= 20" is ">=20"
        .replace(/([<>]=?|=|\^|~)\s+/g, '$1')
        .split(/\s+/)
        .filter((part) => part !== '' && !part.startsWith('<'))
      if (bounds.length !== 1)
        throw new Error(`${field} "${range}": no single lower bound in "${alternative.trim()}"`)
      const match = /^(?:>=|\^|~|=|v)?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(bounds[0])
      if (!match) throw new Error(`${field} "${range}": cannot read "${bounds[0]}"`)
      const number = (part) =>
        part === undefined || part === 'x' || part === '*' ? 0 : Number(part)
      return [Number(match[1]), number(match[2]), number(match[3])]
    })
    .sort(compareVersions)
}

/**
 * The lowest version a range admits (the lowest of {@link admittedFloors}).
 *
 * @param {string} range
 * @param {string} [field] what the range is, for the error
 * @returns {[number, number, number]}
 * @throws {Error} as {@link admittedFloors}.
 * @example lowestAdmitted('>=20.12') // [20, 12, 0]
 */
export function lowestAdmitted(range, field = 'engines.node') {
  return admittedFloors(range, field)[0]
}

/**
 * Orders versions as `[major, minor, patch]`.
 *
 * @param {[number, number, number]} a
 * @param {[number, number, number]} b
 * @returns {number} negative when `a` is lower
 * @example compareVersions([20, 12, 0], [20, 0, 0]) // 12
 */
export const compareVersions = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
