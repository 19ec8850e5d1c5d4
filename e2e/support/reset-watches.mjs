// Run by `pnpm e2e` before the suite: the refresh-efficiency benchmark reads the watches of ONE
// run (not the playback benchmark's, which runs Playwright too and must not clear them).
import { rmSync } from 'node:fs'
import { join } from 'node:path'

rmSync(join(import.meta.dirname, '..', '..', '.tmp', 'bench', 'e2e-watches'), {
  recursive: true,
  force: true,
})
