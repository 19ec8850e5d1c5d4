// Writes the emulator's OpenAPI document (what GET /openapi.json answers) to the file named on
// the command line, for `redocly lint` (`pnpm lint:openapi`, part of npm test). The document is
// built from the routes alone: no worker, no state.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { createApiApp, openApiHeader } from '../src/app.ts'

const [out] = process.argv.slice(2)
if (!out) throw new Error('usage: node scripts/openapi-json.ts <out.json>')
const document = createApiApp().getOpenAPI31Document(openApiHeader('http://127.0.0.1:8788'))
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, JSON.stringify(document, null, 2))
