#!/usr/bin/env node
// `proj-token-backend` (package.json "bin"): the command is cli.ts; this file only runs it, so
// the command can be tested without starting it on import. Loaded dynamically: the peers it
// serves with are optional for the library, and a missing one deserves a sentence, not a trace.
const PEER = /Cannot find (?:package|module) '((?:@hono\/node-server|hono)[^']*)'/

const cli = await import('./cli.ts').catch((error: Error) => {
  const missing = PEER.exec(error.message)
  if (!missing) throw error
  console.error(
    `proj-token-backend: ${missing[1]} is not installed; it serves with hono and @hono/node-server:\n  npm install hono @hono/node-server`,
  )
  return process.exit(1)
})
process.exit(await cli.runTokenBackendCli(process.argv.slice(2), process.env))
