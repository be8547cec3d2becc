import type { ContractFormat } from '../../core/format.js'
import type { JsonSource } from '../../core/json-source.js'
import { generateBenzene } from './generate.js'
import { hashBenzene, inspectBenzene } from './inspect.js'
import { loadBenzene } from './load.js'
import type { BenzeneChecked, BenzeneModel } from './model.js'
import { SchemaFacts, SchemaObjectFacts } from './schema-facts.js'
import { buildModel } from './build-model.js'
import { BENZENE_QUERY_KEYS, resolveBenzeneOptions, type BenzeneOptions } from './options.js'
import { checkBenzene } from './rules/index.js'

/** Benzene contract documents: `*.spec.json`. */
export const benzeneFormat: ContractFormat<JsonSource, BenzeneChecked, BenzeneModel, BenzeneOptions> = {
  name: 'benzene',
  match: (file) => file.endsWith('.spec.json'),
  pattern: /\.spec\.json$/,
  queryKeys: BENZENE_QUERY_KEYS,
  resolveOptions: resolveBenzeneOptions,

  load: loadBenzene,

  // The facts the rules derive (catalogue, hierarchy, merges, the schema list) are handed on, not kept aside.
  check(source, memos) {
    // What is read from each schema object alone is kept by the object across a compiler's compiles.
    const facts = new SchemaFacts(
      source.value,
      memos?.kept('benzene:schema-object-facts', () => new SchemaObjectFacts()),
    )
    return { checked: { source, facts }, diagnostics: checkBenzene(source, facts) }
  },

  // Key order means nothing in a contract document: the converter and the type writer read every
  // map in sorted key order, so the types and validators are the same bytes however the producer
  // ordered members (test/determinism.test.ts).
  model: buildModel,
  generate: generateBenzene,
  inspect: inspectBenzene,
  hash: hashBenzene,
}
