// Run by `npm run build` after the precompiles: V8's code cache of each precompiled validator,
// written beside it (`<file>.v8-cache`, read by src/core/lazy-require.ts, which also writes its
// format). Each validator runs once on a small valid input before its cache is taken, so the
// functions a valid contract calls are in the cache compiled, not only the file's top level. A
// cache made by another Node (V8) version is rejected by V8 at load time and the file is compiled
// as before.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { load } from 'js-yaml'
import { codeCacheFile, codeCacheOf, loadBuilt } from '../dist/src/core/lazy-require.js'

const dist = join(import.meta.dirname, '../dist/src')
const sample = load(readFileSync(join(import.meta.dirname, '../fixtures/nats/valid/ledger.asyncapi.yaml'), 'utf8'))
const files = {
  'formats/nats/asyncapi-validators.cjs': sample,
  'formats/nats/profile-validator.cjs': sample['x-nats-contract'],
  'core/meta-schema-validator.cjs': { type: 'object', required: ['a'], properties: { a: { type: 'string', pattern: '^x' } } },
}
for (const [path, input] of Object.entries(files)) {
  const file = join(dist, path)
  const loaded = loadBuilt(file)
  const validate = loaded.exports.default ?? loaded.exports
  if (validate(input) !== true) throw new Error(`${path} refused its sample input: ${JSON.stringify(validate.errors)}`)
  writeFileSync(codeCacheFile(file), codeCacheOf(loaded))
  console.log(`wrote ${codeCacheFile(file)}`)
}
