import type { Diagnostic } from '../../core/diagnostics.js'
import type { ContractFormat } from '../../core/format.js'
import { NatsContext } from './context.js'
import { generateNats } from './generate.js'
import { loadInput, type NatsInput } from './load.js'
import type { NatsModel } from './model.js'
import { buildNatsModel } from './normalize.js'
import { gateRules, natsRules } from './rules/index.js'

function runRules(input: NatsInput): Diagnostic[] {
  const ctx = new NatsContext(input)
  for (const rule of gateRules) rule.check(ctx)
  // A document that is not AsyncAPI 3.1.0 with profile 0.2.0-draft is not read further: the rest would only echo that.
  if (ctx.diagnostics.length === 0) for (const rule of natsRules) rule.check(ctx)
  return [...input.diagnostics, ...ctx.diagnostics]
}

/** AsyncAPI 3.1.0 documents with the `x-nats-contract` profile v0.2: `*.asyncapi.yaml`, `*.asyncapi.yml`, `asyncapi.yaml`. */
export const natsFormat: ContractFormat<NatsInput, NatsModel, undefined> = {
  name: 'nats',
  match: (file) => /(^|[\\/])asyncapi\.yaml$|\.asyncapi\.ya?ml$/.test(file),
  queryKeys: [],

  async parse(file, host) {
    const { input, diagnostics } = await loadInput(file, host)
    return { parsed: input, diagnostics }
  },

  validate: runRules,

  normalize(input) {
    return buildNatsModel(new NatsContext(input))
  },

  generate: generateNats,

  inspect(input) {
    const { model, diagnostics } = buildNatsModel(new NatsContext(input))
    return { data: model && { format: 'nats', ...model, file: undefined }, diagnostics }
  },
}
