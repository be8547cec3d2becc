import type { ContractFormat } from '../../core/format.js'
import { DaspContext } from './context.js'
import { generateDasp } from './generate.js'
import { loadDasp, type DaspInput } from './load.js'
import type { DaspModel } from './model.js'
import { buildDaspModel } from './normalize.js'
import { daspRules } from './rules.js'

/** DASP extension selections: `*.dasp.json`, with their `*.dasp-ext.json` definitions. */
export const daspFormat: ContractFormat<DaspInput, DaspModel, undefined> = {
  name: 'dasp',
  match: (file) => file.endsWith('.dasp.json'),
  queryKeys: [],
  async parse(file, host) {
    const { input, diagnostics } = await loadDasp(file, host)
    return { parsed: input, diagnostics }
  },
  validate(input) {
    const ctx = new DaspContext(input)
    for (const rule of daspRules) rule.check(ctx)
    return [...input.diagnostics, ...ctx.diagnostics]
  },
  normalize: (input) => ({ model: buildDaspModel(new DaspContext(input)), diagnostics: [] }),
  generate: generateDasp,
  inspect(input) {
    const model = buildDaspModel(new DaspContext(input))
    return { data: { format: 'dasp', request: model.request, sessionFloor: model.floor, attributes: model.attributes }, diagnostics: [] }
  },
}
