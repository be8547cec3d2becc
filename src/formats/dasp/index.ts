import type { ContractFormat } from '../../core/format.js'
import { DaspContext } from './context.js'
import { generateDasp } from './generate.js'
import { loadDasp, type DaspInput } from './load.js'
import type { DaspModel } from './model.js'
import { buildDaspModel } from './build-model.js'
import { checkDasp } from './rules/index.js'
import { DASP_QUERY_KEYS, resolveDaspOptions } from './options.js'

/** DASP extension selections: `*.dasp.json`, with their `*.dasp-ext.json` definitions. */
export const daspFormat: ContractFormat<DaspInput, DaspContext, DaspModel, undefined> = {
  name: 'dasp',
  match: (file) => file.endsWith('.dasp.json'),
  pattern: /\.dasp\.json$/,
  queryKeys: DASP_QUERY_KEYS,
  resolveOptions: resolveDaspOptions,
  load: loadDasp,
  check: checkDasp,
  model: (ctx) => ({ model: buildDaspModel(ctx), diagnostics: [] }),
  generate: generateDasp,
  inspect(model) {
    const text = [`dasp selection ${model.file}`]
    for (const e of (model.request as { extensions?: Array<{ uri: string; version: string; scope: string }> }).extensions ?? [])
      text.push(`  extension ${e.uri} ${e.version}  ${e.scope}`)
    for (const a of model.attributes) text.push(`  attribute ${a.name}`)
    return { data: { format: 'dasp', request: model.request, sessionFloor: model.floor, attributes: model.attributes }, text }
  },
  hash: () => ({
    usage: 'a DASP selection has no contract hash; its definitions are pinned by content (sha256 manifests), and `contracts inspect` shows the exact request.',
  }),
}
