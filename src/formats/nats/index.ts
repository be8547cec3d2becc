import type { Diagnostic } from '../../core/diagnostics.js'
import type { ContractFormat } from '../../core/format.js'
import { NatsContext } from './context.js'
import { APPLICATION_DOCUMENT_NAME } from './document.js'
import { generateNats } from './generate.js'
import { loadInput, type NatsInput } from './load.js'
import type { NatsModel } from './model.js'
import { resolveNatsOptions, type NatsOptions } from './options.js'
import { buildNatsModel } from './build-model.js'
import { gateRules, natsRules, standardRules } from './rules/index.js'
import { standardVersion } from './rules/standard.js'

const WARNING_CODES = new Set([...gateRules, ...natsRules].filter((rule) => rule.severity === 'warning').map((rule) => rule.code))

function check(input: NatsInput): { checked: NatsContext; diagnostics: Diagnostic[] } {
  const ctx = new NatsContext(input)
  for (const rule of gateRules) rule.check(ctx)
  // A document that is not AsyncAPI 3.1.0 with profile 0.2.0-draft is not read further: the rest would only echo that.
  // One without a profile at all (most AsyncAPI documents) still has its standard part checked, so
  // the user learns everything in one run.
  // So does a 3.0.x document (a profiled one is refused for its version, NATS_ASYNCAPI_VERSION).
  if (ctx.diagnostics.length === 0) for (const rule of natsRules) rule.check(ctx)
  else if (standardVersion(ctx.doc) !== undefined && ctx.diagnostics.every((d) => d.code === 'NATS_PROFILE_MISSING' || d.code === 'NATS_ASYNCAPI_VERSION'))
    for (const rule of standardRules) rule.check(ctx)
  // A rule declared as a warning (SHOULD-level, or legal and probably not meant) reports warnings.
  const diagnostics = ctx.diagnostics.map((d) => (WARNING_CODES.has(d.code) ? { ...d, severity: 'warning' as const } : d))
  return { checked: ctx, diagnostics }
}

/** AsyncAPI 3.1.0 documents with the `x-nats-contract` profile v0.2: `*.asyncapi.yaml`, `*.asyncapi.yml`, `*.asyncapi.json`, `asyncapi.yaml`, `asyncapi.json`. */
export const natsFormat: ContractFormat<NatsInput, NatsContext, NatsModel, NatsOptions> = {
  name: 'nats',
  match: (file) => APPLICATION_DOCUMENT_NAME.test(file),
  pattern: APPLICATION_DOCUMENT_NAME,
  queryKeys: [],
  resolveOptions: resolveNatsOptions,
  load: loadInput,
  check,
  model: buildNatsModel,
  generate: generateNats,

  inspect(model) {
    const text = [`nats contract ${model.contract.id} ${model.contract.version} (${model.file})`, `document digest: ${model.contract.digest}`]
    for (const c of model.channels) text.push(`  channel ${c.id}${c.address === undefined ? ' (reply channel)' : `  ${c.address}`}`)
    for (const o of model.operations) text.push(`  operation ${o.id}  ${o.action} ${o.channel}`)
    return { data: { format: 'nats', ...model, file: undefined }, text }
  },

  hash: (model) => ({
    usage: `a NATS contract has no contract hash; it is identified by its document digest, ${model.contract.digest} (see \`contracts inspect\`).`,
  }),
}
