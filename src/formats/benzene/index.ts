import type { Diagnostic } from '../../core/diagnostics.js'
import type { ContractFormat } from '../../core/format.js'
import { parseJsonSource, type JsonSource } from '../../core/json-source.js'
import type { BenzeneDocument } from './document.js'
import { generateBenzene } from './generate.js'
import { inspectBenzene } from './inspect.js'
import type { BenzeneModel } from './model.js'
import { buildModel } from './normalize-model.js'
import type { BenzeneOptions } from './options.js'
import { benzeneRules } from './rules/index.js'

/** Benzene contract documents: `*.spec.json`. */
export const benzeneFormat: ContractFormat<JsonSource, BenzeneModel, BenzeneOptions> = {
  name: 'benzene',
  match: (file) => file.endsWith('.spec.json'),
  queryKeys: ['topics', 'includeReserved', 'validate'],

  async parse(file, host) {
    const { source, diagnostics } = parseJsonSource(file, await host.readText(file))
    return { parsed: source, diagnostics }
  },

  validate(source) {
    const diagnostics: Diagnostic[] = []
    for (const rule of benzeneRules) {
      rule.check(source.value, (pointer, message, data) => {
        const { line, column } = source.locate(pointer)
        diagnostics.push({ code: rule.code, severity: 'error', message, file: source.file, pointer, line, column, ...(data ? { data } : {}) })
      })
    }
    return diagnostics
  },

  // Key order means nothing in a contract document: the converter and the type writer read every
  // map in sorted key order, so the types and validators are the same bytes however the producer
  // ordered members (test/determinism.test.ts).
  normalize: (source, query, options) => buildModel(source, source.value as BenzeneDocument, query, options),
  generate: generateBenzene,
  inspect: inspectBenzene,
}
