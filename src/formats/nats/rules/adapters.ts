import { ADAPTER_KINDS, ADAPTER_REFERENCES, CONTEXT_FIELDS } from '../interaction-facts.js'
import { isObject } from '../document.js'
import { localSchema } from '../schemas.js'
import { natsRule, type NatsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over adapters, workflows, interactions and pipelines, each reference resolved by map lookup: O(size of those sections). */

export const adapterKind = natsRule({
  code: 'NATS_ADAPTER_KIND',
  description: 'An adapter kind outside the ten the profile defines.',
  check(ctx, report) {
    for (const [key, adapter] of Object.entries(ctx.section('adapters'))) {
      if (isObject(adapter) && typeof adapter.kind === 'string' && !(ADAPTER_KINDS as readonly string[]).includes(adapter.kind)) {
        report(
          ctx.pointer('x-nats-contract', 'adapters', key, 'kind'),
          `Adapter kind ${JSON.stringify(adapter.kind)} is not one of ${ADAPTER_KINDS.join(', ')}.`,
        )
      }
    }
  },
})

/**
 * "Versions are exact identifiers": letters, digits and `._+-`, and no wildcard segment (`x`, `X`)
 * in the version core, the part before a SemVer pre-release (`-`) or build metadata (`+`). A
 * segment is compared whole, so `1.0.0+linux` (build metadata ending in x) and `1.0.0-x.1` (a
 * pre-release) are exact, and `1.x`, `1.X.3` are not. O(length of the version).
 */
export function exactVersion(version: string): boolean {
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(version)) return false
  const core = version.split(/[-+]/, 1)[0]!
  return !core.split('.').some((segment) => segment === 'x' || segment === 'X')
}

export const adapterVersion = natsRule({
  code: 'NATS_ADAPTER_VERSION',
  description: 'An adapter version that is empty or not an exact identifier (no ranges, no wildcards).',
  check(ctx, report) {
    for (const [key, adapter] of Object.entries(ctx.section('adapters'))) {
      if (!isObject(adapter) || typeof adapter.version !== 'string') continue
      if (!exactVersion(adapter.version)) {
        report(
          ctx.pointer('x-nats-contract', 'adapters', key, 'version'),
          `Adapter version ${JSON.stringify(adapter.version)} is not an exact identifier such as 1.2.0.`,
        )
      }
    }
  },
})

export const schemaPointers = natsRule({
  code: 'NATS_SCHEMA_POINTER',
  description: 'A profile schema reference (adapter, input, workflow) is not a local `#/components/schemas/...` pointer that resolves.',
  check(ctx, report) {
    const check = (value: unknown, ...path: Array<string | number>) => {
      if (value !== undefined && !localSchema(ctx, value))
        report(ctx.pointer('x-nats-contract', ...path), `${JSON.stringify(value)} is not a #/components/schemas/<Name> pointer of this document that resolves.`)
    }
    for (const [key, adapter] of Object.entries(ctx.section('adapters'))) {
      if (isObject(adapter)) for (const field of ['inputSchema', 'outputSchema']) check(adapter[field], 'adapters', key, field)
    }
    for (const [key, workflow] of Object.entries(ctx.section('workflows'))) {
      if (isObject(workflow)) for (const field of ['inputSchema', 'outputSchema']) check(workflow[field], 'workflows', key, field)
    }
    for (const [key, interaction] of Object.entries(ctx.section('interactions'))) {
      const inputs = isObject(interaction) && isObject(interaction.inputs) ? interaction.inputs : {}
      for (const [name, input] of Object.entries(inputs)) if (isObject(input)) check(input.schema, 'interactions', key, 'inputs', name, 'schema')
    }
  },
})

export const adapterReferences = natsRule({
  code: 'NATS_ADAPTER_REFERENCE',
  description: 'An adapter reference that names no adapter, or one of the wrong kind.',
  check(ctx, report) {
    const adapters = ctx.section('adapters')
    const expect = (ref: unknown, kind: string, pointer: string) => {
      if (typeof ref !== 'string') return
      const adapter = adapters[ref]
      if (!isObject(adapter)) report(pointer, `${JSON.stringify(ref)} is not an adapter of this document.`)
      else if (adapter.kind !== kind) report(pointer, `${JSON.stringify(ref)} is a ${String(adapter.kind)} adapter; this reference needs a ${kind} adapter.`)
    }
    for (const [key, interaction] of Object.entries(ctx.section('interactions'))) {
      if (!isObject(interaction)) continue
      for (const { path, kind } of ADAPTER_REFERENCES) {
        let value: unknown = interaction
        for (const step of path) value = isObject(value) ? value[step] : undefined
        expect(value, kind, ctx.pointer('x-nats-contract', 'interactions', key, ...path))
      }
    }
    for (const [key, pipeline] of Object.entries(ctx.section('pipelines'))) {
      const steps = isObject(pipeline) && Array.isArray(pipeline.steps) ? pipeline.steps : []
      steps.forEach(
        (step, i) => isObject(step) && expect(step.inputAdapter, 'transform', ctx.pointer('x-nats-contract', 'pipelines', key, 'steps', i, 'inputAdapter')),
      )
    }
    for (const [key, workflow] of Object.entries(ctx.section('workflows'))) {
      if (isObject(workflow)) expect(workflow.adapter, 'workflow', ctx.pointer('x-nats-contract', 'workflows', key, 'adapter'))
    }
  },
})

/** Every `{context: field}` in interaction and pipeline bindings. */
export function* contextSources(ctx: Parameters<NatsRule['check']>[0]): Generator<{ field: unknown; pointer: string }> {
  const inBindings = function* (bindings: unknown, ...path: Array<string | number>) {
    if (!isObject(bindings)) return
    for (const part of ['subject', 'payload']) {
      const map = isObject(bindings[part]) ? (bindings[part] as Record<string, unknown>) : {}
      for (const [target, source] of Object.entries(map))
        if (isObject(source) && 'context' in source)
          yield { field: source.context, pointer: ctx.pointer('x-nats-contract', ...path, 'bindings', part, target, 'context') }
    }
  }
  for (const [key, interaction] of Object.entries(ctx.section('interactions')))
    if (isObject(interaction)) yield* inBindings(interaction.bindings, 'interactions', key)
  for (const [key, pipeline] of Object.entries(ctx.section('pipelines'))) {
    const steps = isObject(pipeline) && Array.isArray(pipeline.steps) ? pipeline.steps : []
    for (let i = 0; i < steps.length; i++)
      if (isObject(steps[i])) yield* inBindings((steps[i] as Record<string, unknown>).bindings, 'pipelines', key, 'steps', i)
  }
}

export const contextFields = natsRule({
  code: 'NATS_CONTEXT_FIELD',
  description: '`{context: field}` names something other than the thirteen context fields.',
  check(ctx, report) {
    for (const { field, pointer } of contextSources(ctx)) {
      if (typeof field !== 'string' || !Object.hasOwn(CONTEXT_FIELDS, field))
        report(pointer, `${JSON.stringify(field)} is not a context field (${Object.keys(CONTEXT_FIELDS).join(', ')}).`)
    }
  },
})
