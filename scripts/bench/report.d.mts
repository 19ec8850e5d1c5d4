export declare const quick: boolean
export declare const target: () => string
export declare const median: (values: readonly number[]) => number
export declare const percentile: (values: readonly number[], p: number) => number
export declare const table: (
  header: readonly string[],
  rows: readonly (readonly string[])[],
) => string
export declare const stamp: (extra?: string) => string
export declare const report: (id: string, markdown: string) => void
