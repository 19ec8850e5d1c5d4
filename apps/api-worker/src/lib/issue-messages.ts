import type { z } from 'zod'

type Issue = z.core.$ZodIssue

// zod's own messages ("Invalid input: expected string, received undefined", "Too big: expected
// int to be <=9007199254740991"): validator internals, never shown as they are.
const ZOD_DEFAULT = /^(Invalid|Too big|Too small|Unrecognized key|Expected)/

const KIND: Record<string, string> = {
  number: 'A valid number is required.',
  int: 'A valid integer is required.',
  string: 'Not a valid string.',
  boolean: 'Must be a valid boolean.',
  array: 'Expected a list of items.',
  object: 'Expected an object.',
}

const bound = (
  issue: Issue & { origin?: string },
  limit: unknown,
  inclusive: boolean | undefined,
  big: boolean,
) => {
  const origin = issue.origin
  if (origin === 'string')
    return big
      ? `Ensure this field has no more than ${limit} characters.`
      : `Ensure this field has at least ${limit} characters.`
  if (origin === 'array' || origin === 'set')
    return big
      ? `Ensure this field has no more than ${limit} elements.`
      : `Ensure this field has at least ${limit} elements.`
  const relation = `${big ? 'less' : 'greater'} than${inclusive === false ? '' : ' or equal to'}`
  return `Ensure this value is ${relation} ${limit}.`
}

/**
 * A validation issue in the API's own words (the vendor's Django REST style: "This field is
 * required.", "Ensure this value is less than or equal to 1000."). Messages the schemas wrote
 * themselves are kept; zod's defaults are translated by issue code.
 *
 * @example
 * ```ts
 * issueMessage({ code: 'too_big', origin: 'number', maximum: 1000, inclusive: true, path: ['limit'], message: 'Too big: …' })
 * // 'Ensure this value is less than or equal to 1000.'
 * ```
 */
export function issueMessage(issue: Issue): string {
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message
  switch (issue.code) {
    case 'invalid_type':
      return /received undefined$/.test(issue.message)
        ? 'This field is required.'
        : (KIND[issue.expected] ?? `Not a valid ${issue.expected}.`)
    case 'too_big':
      return bound(issue, issue.maximum, issue.inclusive, true)
    case 'too_small':
      return bound(issue, issue.minimum, issue.inclusive, false)
    case 'invalid_value':
      return `Select a valid choice: ${issue.values.map(String).join(', ')}.`
    case 'invalid_format':
      return issue.format === 'uuid' ? 'Must be a valid UUID.' : 'Enter a valid value.'
    case 'unrecognized_keys':
      return `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.`
    default:
      return 'Invalid value.'
  }
}
