// Run by `npm run build` after tsc: the AsyncAPI 3.1.0 JSON Schema compiled by ajv into standalone
// ES module code, at build time, so a fresh process does not spend a quarter of a second compiling
// it before its first NATS check (src/formats/nats/rules/standard.ts loads this file when it is
// there and compiles the schema itself when it is not, as when the sources run directly). Two of
// it: the full schema's, and the schema cut to what a NATS contract reaches, a quarter of the code,
// which a fresh process loads for its first NATS compile.
import { createRequire } from 'node:module'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { buildSync, transformSync } from 'esbuild'

const require = createRequire(import.meta.url)
/**
 * ajv's standalone code minified (CommonJS kept): the AsyncAPI validator is 1.1 MB as ajv writes
 * it, and a fresh process compiling it spent about 30 ms of a `contracts check` on its bytes.
 */
// Tree-shaken too: ajv writes each checked schema as a constant, used or not.
const minified = (code) => transformSync(code, { loader: 'js', minify: true, treeShaking: true, target: 'node20' }).code
/**
 * Each `instancePath: instancePath + ...` of ajv's standalone code (the member path of a nested
 * value, built for every call into a subschema and every error object) as the caller's own path,
 * unextended. The validators precompiled here are read for their verdict only: the compiler asks
 * the run-time all-errors compile for the diagnostics of a value any of them refuses
 * (src/formats/nats/rules/standard.ts, src/core/standalone-validators.ts). Building those strings
 * (with two `replace` calls per member name) was most of the AsyncAPI validator's time on a valid
 * 500-channel contract; the path is never a condition of a check, so the verdict is the same
 * (test/precompiled-asyncapi.test.ts holds each to the run-time compile). A form of the expression
 * this does not know (another ajv version) fails the build.
 */
const PATH_EXTENDED = /instancePath:instancePath(?:\+"(?:[^"\\]|\\.)*"| ?\+ ?(?:i\d+|key\d+\.replace\(\/~\/g, "~0"\)\.replace\(\/\\\/\/g, "~1"\)))+/g
function verdictOnly(code) {
  if (code.includes('$data')) throw new Error('precompile-asyncapi: a $data reference reads instance paths; keep them')
  const out = code.replace(PATH_EXTENDED, 'instancePath')
  if (/instancePath\s*\+/.test(out)) throw new Error('precompile-asyncapi: an instance path this script does not know how to leave unextended')
  return out
}
/**
 * Writes a validator's CommonJS as one file with what it require()s bundled in (ajv's runtime
 * helpers, the formats): a require() from the package's folder resolves through node_modules, and
 * those few small requires cost a fresh process about as much as loading the validator itself
 * (bench/cold-start.ts). `header` is the file's first line.
 */
function writeSelfContained(path, header, code) {
  const entry = join(dirname(path), `.${basename(path)}.entry.cjs`)
  writeFileSync(entry, code)
  try {
    buildSync({
      entryPoints: [entry],
      outfile: path,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      minify: true,
      banner: { js: header },
      logLevel: 'warning',
    })
  } finally {
    rmSync(entry, { force: true })
  }
}
const Ajv = require('ajv').default
const { _ } = require('ajv')
const addFormats = require('ajv-formats')
const standaloneCode = require('ajv/dist/standalone').default
const schema = require('@asyncapi/specs/schemas/3.1.0-without-$id.json')

const out = join(import.meta.dirname, '../dist/src/formats/nats/asyncapi-validators.cjs')
mkdirSync(dirname(out), { recursive: true })
const { natsStandardSchema, withoutAnnotations } = await import('../dist/src/formats/nats/rules/standard-split.js')
/**
 * The first-error validator of `schema` (annotations dropped: no validator reads them), as ajv's
 * standalone code. Only first-error validators are built: every valid document meets one; the
 * all-errors one (for diagnostics, on a failing document) is compiled when first needed.
 * The same options as the run-time compile: formats checked as ajv-formats checks them, with
 * `uri-reference` left to the reference rules (asyncapi-formats.cjs beside this file).
 */
function asyncapiValidator(schema) {
  const ajv = new Ajv({
    strict: false,
    validateFormats: true,
    allErrors: false,
    code: { source: true, formats: _`require("./asyncapi-formats.cjs").formats` },
  })
  addFormats(ajv)
  ajv.addFormat('uri-reference', true)
  ajv.addFormat('regex', true)
  return minified(verdictOnly(standaloneCode(ajv, ajv.compile(withoutAnnotations(schema)))))
}
// The formats both AsyncAPI validators require() beside them: ajv-formats' full set, with
// `uri-reference` left to the reference rules and `regex` to the pattern rules, exactly as the run-time compile is given them
// (bundled into each validator, removed below).
writeFileSync(
  join(dirname(out), 'asyncapi-formats.cjs'),
  [
    '// Generated by scripts/precompile-asyncapi.mjs: the formats the precompiled AsyncAPI validators check. Do not edit.',
    "module.exports = { formats: { ...require('ajv-formats/dist/formats').fullFormats, 'uri-reference': true, regex: true } }",
    '',
  ].join('\n'),
)
// CommonJS, as ajv writes it, with its helpers bundled in (`writeSelfContained`): the compiler loads
// it synchronously (src/formats/nats/rules/standard.ts).
writeSelfContained(
  out,
  '// Generated by scripts/precompile-asyncapi.mjs from @asyncapi/specs 3.1.0 (ajv standalone, minified, its helpers bundled): the first-error validator. Do not edit.',
  asyncapiValidator(schema),
)
// The same schema cut to what a NATS contract reaches (src/formats/nats/rules/standard-split.ts),
// with what was cut beside it: the compiler runs this one unless a document holds a cut part.
const { schema: natsSchema, cut } = natsStandardSchema(schema)
const natsOut = join(dirname(out), 'asyncapi-nats-validator.cjs')
writeSelfContained(
  natsOut,
  '// Generated by scripts/precompile-asyncapi.mjs from @asyncapi/specs 3.1.0 cut for NATS contracts (ajv standalone, minified, its helpers bundled): the first-error validator. Do not edit.',
  `${asyncapiValidator(natsSchema)}\nmodule.exports.cut = ${JSON.stringify(cut)};\n`,
)
rmSync(join(dirname(out), 'asyncapi-formats.cjs'))
console.log(`wrote ${out}`)
console.log(`wrote ${natsOut}`)

// The profile's shape (x-nats-contract), first-error, the same way: a valid document meets only it.
const { profileSchema } = await import('../dist/src/formats/nats/profile-schema.js')
const profileAjv = new Ajv({ strict: false, validateFormats: false, allErrors: false, code: { source: true } })
const profileOut = join(dirname(out), 'profile-validator.cjs')
writeSelfContained(
  profileOut,
  '// Generated by scripts/precompile-asyncapi.mjs from src/formats/nats/profile-schema.ts (ajv standalone, minified, its helpers bundled): the first-error validator. Do not edit.',
  minified(verdictOnly(standaloneCode(profileAjv, profileAjv.compile(withoutAnnotations(profileSchema))))),
)
console.log(`wrote ${profileOut}`)

// The JSON Schema draft-07 meta-schema (what payload schemas are checked against before anything
// is generated for them), first-error, the same way.
const metaAjv = new Ajv({ strict: false, validateFormats: false, code: { source: true } })
const metaOut = join(dirname(out), '../../core/meta-schema-validator.cjs')
writeSelfContained(
  metaOut,
  "// Generated by scripts/precompile-asyncapi.mjs from ajv's JSON Schema draft-07 meta-schema (ajv standalone, minified, its helpers bundled). Do not edit.",
  minified(verdictOnly(standaloneCode(metaAjv, metaAjv.getSchema('http://json-schema.org/draft-07/schema')))),
)
console.log(`wrote ${metaOut}`)
