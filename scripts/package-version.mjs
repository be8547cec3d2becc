// The first step of `npm run build`: writes package.json's `version` into src/core/package-version.ts
// (when it differs), so the compiled package knows its version without reading package.json when it
// runs: an app that bundles the package root has no package.json of ours beside the bundle.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const file = join(root, 'src/core/package-version.ts')
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
if (typeof version !== 'string' || !/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(version))
  throw new Error(`package.json: version ${JSON.stringify(version)} is not a semantic version`)
const text = readFileSync(file, 'utf8')
const line = /^export const packageVersion = '[^'\n]*'$/m
if (!line.test(text)) throw new Error(`${file}: no \`export const packageVersion = '...'\` line to update`)
const updated = text.replace(line, `export const packageVersion = '${version}'`)
if (updated !== text) {
  writeFileSync(file, updated)
  console.log(`wrote version ${version} into src/core/package-version.ts`)
}
