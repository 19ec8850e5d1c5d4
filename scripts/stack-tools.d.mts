export declare const WRANGLER_ENV: Record<string, string>
export declare const bin: (cwd: string, pkg: string, script: string) => [string, string]
