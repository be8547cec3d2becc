import type { ContractFormat } from '../../core/format.js'
import { NatsContext } from './context.js'
import { APPLICATION_DOCUMENT_NAME } from './document.js'
import { generateNats } from './generate.js'
import { loadInput, type NatsInput } from './load.js'
import type { NatsModel } from './model.js'
import { NATS_QUERY_KEYS, resolveNatsOptions, type NatsOptions } from './options.js'
import { buildNatsModel } from './build-model.js'
import { checkNats } from './rules/index.js'

/** AsyncAPI 3.1.0 documents with the `x-nats-contract` profile v0.2: `*.asyncapi.yaml`, `*.asyncapi.yml`, `*.asyncapi.json`, `asyncapi.yaml`, `asyncapi.json`. */
export const natsFormat: ContractFormat<NatsInput, NatsContext, NatsModel, NatsOptions> = {
  name: 'nats',
  match: (file) => APPLICATION_DOCUMENT_NAME.test(file),
  pattern: APPLICATION_DOCUMENT_NAME,
  queryKeys: NATS_QUERY_KEYS,
  resolveOptions: resolveNatsOptions,
  load: loadInput,
  check: checkNats,
  model: buildNatsModel,
  generate: generateNats,

  inspect(model) {
    const text = [`nats contract ${model.contract.id} ${model.contract.version} (${model.file})`, `document digest: ${model.contract.digest}`]
    for (const c of model.channels) text.push(`  channel ${c.id}${c.address === undefined ? ' (reply channel)' : `  ${c.address}`}`)
    for (const o of model.operations) text.push(`  operation ${o.id}  ${o.action} ${o.channel}`)
    // The validator plan and form are generation's input, not data for tools.
    const { validatorPlan: _plan, validators: _form, ...data } = model
    return { data: { format: 'nats', ...data, file: undefined }, text }
  },

  hash: (model) => ({
    usage: `a NATS contract has no contract hash; it is identified by its document digest, ${model.contract.digest} (see \`contracts inspect\`).`,
  }),
}
