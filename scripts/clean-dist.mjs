// The first step of `npm run build`: dist/ emptied, so every file in it is one this build wrote.
// A file a build step stopped writing would otherwise survive in a working copy and hide the gap
// until a clean clone (CI) lacked it.
import { rmSync } from 'node:fs'
import { join } from 'node:path'

rmSync(join(import.meta.dirname, '../dist'), { recursive: true, force: true })
