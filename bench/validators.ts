/**
 * Validator cases of `npm run bench` (bench/run.ts); `npx tsx bench/validators.ts` runs them alone.
 * The validators a generated Benzene module holds (the code `generateValidators` writes for the
 * converted schemas, run with the runtime's helpers) against ajv's compiled validators of the same
 * schemas, same options as the differential test holds them to (`allErrors`, own properties), on
 * the same payloads: valid ones, and invalid ones (one wrong member, deep in the payload). The
 * runtime's schema interpreter (`schemaValidator`) is timed beside them, for reference. Verdicts
 * are compared before anything is timed.
 */
import { createRequire } from 'node:module'
import { SCHEMA_HELPERS } from '../dist/src/core/schema-code.js'
import { convert, definitionsDocument, type ConvertContext } from '../dist/src/formats/benzene/json-schema.js'
import { SchemaFacts } from '../dist/src/formats/benzene/schema-facts.js'
import { generateValidators } from '../dist/src/formats/benzene/validators.js'
import { schemaValidator, type Schema } from '../dist/src/runtime/shared/schema-check.js'
import * as helpers from '../dist/src/runtime/shared/validator-helpers.js'
import { benzeneDocument } from './generate.js'
import { paired } from './measure.js'

const Ajv = createRequire(import.meta.url)('ajv') as typeof import('ajv').default

export async function validatorCases(RUNS: number): Promise<Record<string, { ratio: number; met: boolean; [k: string]: unknown }>> {
  const doc = JSON.parse(benzeneDocument(50)) as { components: { schemas: Record<string, unknown> } }
  const catalogue = doc.components.schemas
  const ctx: ConvertContext = {
    facts: new SchemaFacts(doc),
    direction: 'request',
    int64: 'number',
    documentId: 'doc',
    keys: new Map(),
    pending: [],
    asked: new Set(),
  }
  const roots = Array.from({ length: 50 }, (_, i) => convert({ $ref: `#/components/schemas/Request${i}` }, ctx))
  const defs = definitionsDocument(ctx)
  const definitions = Object.fromEntries(Object.entries(defs.definitions as Record<string, Schema>).map(([k, v]) => [`doc#/definitions/${k}`, v]))
  const ajv = new Ajv({ allErrors: true, ownProperties: true, strict: false, validateFormats: false, unicodeRegExp: true })
  ajv.addSchema(defs)
  const interpreted = roots.map((root) => schemaValidator(root as Schema, definitions))
  const ours = generatedValidators(catalogue)
  const theirs = roots.map((root) => ajv.compile(root as object))
  const lines = Array.from({ length: 8 }, (_, i) => ({ Sku: `sku-${i}`, Qty: i + 1 }))
  const valid = Array.from({ length: 50 }, (_, i) => ({
    Id: `order-${i}`,
    Total: { Amount: 42.5 + i, Currency: 'EUR' },
    Ship: { Street: null, City: 'Lyon', Country: 'FR' },
    Lines: lines,
  }))
  // One wrong member, at the end of the last line: a validator has to walk the payload to find it.
  const invalid = valid.map((v) => ({ ...v, Lines: [...lines.slice(0, 7), { Sku: 'sku-7', Qty: 'eight' }] }))
  for (let i = 0; i < 50; i++) {
    for (const validators of [ours, interpreted, theirs]) {
      if (validators[i]!(valid[i]) !== true) throw new Error('a valid payload is refused')
      if (validators[i]!(invalid[i]) !== false) throw new Error('an invalid payload is accepted')
    }
  }
  const N = 2_000
  const batch = (validators: Array<(v: unknown) => unknown>, payloads: unknown[]) => () => {
    let sink: unknown
    for (let n = 0; n < N; n++) for (let i = 0; i < 50; i++) sink = validators[i]!(payloads[i])
    return sink
  }
  const onValid = await paired({ ajv: batch(theirs, valid), ours: batch(ours, valid), interpreter: batch(interpreted, valid) }, RUNS)
  const onInvalid = await paired({ ajv: batch(theirs, invalid), ours: batch(ours, invalid), interpreter: batch(interpreted, invalid) }, RUNS)
  return {
    'benzene-validators-valid-vs-ajv': {
      ours_ms: onValid.ms.ours,
      baseline_ms: onValid.ms.ajv,
      ratio: onValid.ratio.ours,
      spread: onValid.spread.ours,
      target: '<= 1.0',
      met: onValid.ratio.ours <= 1.0,
      validations: N * 50,
      interpreter_ratio: onValid.ratio.interpreter,
    },
    'benzene-validators-invalid-vs-ajv': {
      ours_ms: onInvalid.ms.ours,
      baseline_ms: onInvalid.ms.ajv,
      ratio: onInvalid.ratio.ours,
      spread: onInvalid.spread.ours,
      target: '<= 1.2',
      met: onInvalid.ratio.ours <= 1.2,
      validations: N * 50,
      interpreter_ratio: onInvalid.ratio.interpreter,
    },
  }
}

/** The 50 request validators of the document's module, as `generateValidators` writes them (shapes shared, `$refValidator`), evaluated with the runtime's helpers. */
function generatedValidators(catalogue: Record<string, unknown>): Array<(v: unknown) => boolean> {
  const requests = Array.from({ length: 50 }, (_, i) => ({
    name: `$r${i}`,
    schema: { $ref: `#/components/schemas/Request${i}` },
    direction: 'request' as const,
  }))
  const { declarations, validators } = generateValidators(requests, new SchemaFacts({ components: { schemas: catalogue } }), 'number')
  const body = [...declarations].map(([name, expression]) => `const ${name} = ${expression};`).join('\n')
  const names = Object.keys(SCHEMA_HELPERS)
  const values = Object.values(SCHEMA_HELPERS).map((h) => (helpers as Record<string, unknown>)[h])
  return new Function(...names, `${body}\nreturn [${requests.map((r) => validators.get(r.name)!).join(', ')}];`)(...values)
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await validatorCases(Number(process.argv[2] ?? 5)))
