import { isObject } from '../document.js'
import { configProblems, nameProblem } from '../native-config.js'
import { positiveInt64Problem } from '../exact-integers.js'
import { resolveConfig, type ResolvedConfig } from '../resources.js'
import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { natsRule, type NatsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over streams, consumers and operations, each config checked field by field: O(size of the native section). */

const KINDS = [
  ['streams', 'stream'],
  ['consumers', 'consumer'],
] as const

export const authorityForm = natsRule({
  code: 'NATS_AUTHORITY_FORM',
  description: 'A stream or consumer is not exactly `{authority: contract, config}` or `{authority: external, artifact, pointer}`.',
  check(ctx, report) {
    for (const [section, kind] of KINDS) {
      for (const [key, resource] of Object.entries(ctx.section(section))) {
        if (!isObject(resource)) continue
        const at = ctx.pointer('x-nats-contract', section, key)
        const has = (k: string) => Object.hasOwn(resource, k)
        if (resource.authority === 'contract' && (!has('config') || has('artifact') || has('pointer'))) {
          report(at, `A contract-owned ${kind} has a config and no artifact or pointer.`)
        } else if (resource.authority === 'external' && (has('config') || !has('artifact') || !has('pointer'))) {
          report(at, `An external ${kind} names a locked artifact and a pointer into it, and has no config of its own (one authority per fact).`)
        }
      }
    }
  },
})

export const artifactPointer = natsRule({
  code: 'NATS_ARTIFACT_POINTER',
  description: "An external resource's pointer does not resolve in its locked artifact.",
  check(ctx, report) {
    for (const [section, kind] of KINDS) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        if (resolved?.authority === 'external' && resolved.config === undefined) {
          report(
            ctx.pointer('x-nats-contract', section, key, 'pointer'),
            `${resolved.pointer} selects nothing in ${resolved.file.file}; it must select the ${kind} configuration.`,
          )
        }
      }
    }
  },
})

function configRule<const Code extends string>(code: Code, kind: 'stream' | 'consumer'): NatsRule<Code> {
  const section = kind === 'stream' ? 'streams' : 'consumers'
  return natsRule({
    code,
    description: `A ${kind} configuration is not the closed v0.2 configuration: a required field missing, a value not allowed, a limit or duration not a positive integer, or an unsupported field${kind === 'consumer' ? ' (push consumers included)' : ''}.`,
    check(ctx, report) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        if (!resolved || resolved.config === undefined) continue
        const positive = (field: string, value: unknown) => positiveInt64Problem(resolved.file, `${resolved.pointer}/${escapeToken(field)}`, value)
        for (const problem of configProblems(kind, resolved.config, positive))
          report.in(resolved.file, resolved.pointer + problem.at, problem.message, { [kind]: key })
      }
    },
  })
}

export const streamConfig = configRule('NATS_STREAM_CONFIG', 'stream')

export const consumerConfig = configRule('NATS_CONSUMER_CONFIG', 'consumer')

function nameRule<const Code extends string>(code: Code, section: 'streams' | 'consumers', field: 'name' | 'durable_name'): NatsRule<Code> {
  return natsRule({
    code,
    description: `A ${field} that is not a valid NATS ${section === 'streams' ? 'stream' : 'durable consumer'} name.`,
    check(ctx, report) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        if (!isObject(resolved?.config) || !Object.hasOwn(resolved.config, field)) continue
        const problem = nameProblem(resolved.config[field], field)
        if (problem) report.in(resolved.file, `${resolved.pointer}/${field}`, `${problem}.`)
      }
    },
  })
}

export const streamName = nameRule('NATS_STREAM_NAME', 'streams', 'name')

export const durableName = nameRule('NATS_DURABLE_NAME', 'consumers', 'durable_name')

export const consumerStream = natsRule({
  code: 'NATS_UNKNOWN_STREAM',
  description: 'A consumer or a JetStream publish names a stream key the document does not define.',
  check(ctx, report) {
    const streams = ctx.section('streams')
    for (const [key, consumer] of Object.entries(ctx.section('consumers'))) {
      if (isObject(consumer) && typeof consumer.stream === 'string' && !Object.hasOwn(streams, consumer.stream)) {
        report(
          ctx.pointer('x-nats-contract', 'consumers', key, 'stream'),
          `Consumer ${JSON.stringify(key)} names stream ${JSON.stringify(consumer.stream)}, which x-nats-contract.streams does not define.`,
        )
      }
    }
    for (const [id, op] of Object.entries(ctx.section('operations'))) {
      const publish = isObject(op) && isObject(op.publish) ? op.publish : undefined
      if (publish?.api === 'jetstream' && typeof publish.stream === 'string' && !Object.hasOwn(streams, publish.stream)) {
        report(
          ctx.pointer('x-nats-contract', 'operations', id, 'publish', 'stream'),
          `Operation ${JSON.stringify(id)} publishes to stream ${JSON.stringify(publish.stream)}, which x-nats-contract.streams does not define.`,
        )
      }
    }
  },
})

/** Each stream's (or consumer's) configuration that is an object, with where it sits. */
export function* configs(
  ctx: Parameters<NatsRule['check']>[0],
  section: 'streams' | 'consumers',
): Generator<[key: string, config: Record<string, unknown>, resolved: ResolvedConfig]> {
  for (const key of Object.keys(ctx.section(section))) {
    const resolved = resolveConfig(ctx, section, key)
    if (resolved && isObject(resolved.config)) yield [key, resolved.config, resolved]
  }
}

export const subjectsOf = (config: unknown): string[] =>
  isObject(config) && Array.isArray(config.subjects) ? config.subjects.filter((s): s is string => typeof s === 'string') : []

/**
 * "External artifacts are locked JSON documents": a stream's or consumer's external artifact is a
 * `.json` file, read as strict JSON (a YAML file, which load would read as YAML, is refused).
 * Workflow documents are Open Workflow documents and may be YAML. O(resources).
 */
export const artifactFormat = natsRule({
  code: 'NATS_ARTIFACT_FORMAT',
  description: "A stream's or consumer's external artifact that is not a `.json` document (external native artifacts are locked JSON documents).",
  check(ctx, report) {
    for (const [section, kind] of KINDS) {
      for (const [key, resource] of Object.entries(ctx.section(section))) {
        if (!isObject(resource) || resource.authority !== 'external' || !isObject(resource.artifact) || typeof resource.artifact.path !== 'string') continue
        if (!resource.artifact.path.endsWith('.json'))
          report(
            ctx.pointer('x-nats-contract', section, key, 'artifact', 'path'),
            `The ${kind} artifact ${JSON.stringify(resource.artifact.path)} is not a JSON document; external native artifacts are locked JSON documents.`,
          )
      }
    }
  },
})
