import { isObject } from '../document.js'
import { configProblems, nameProblem } from '../native-config.js'
import { resolveConfig } from '../resources.js'
import type { NatsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over streams and consumers, each config checked field by field: O(size of the native section). */

const KINDS = [
  ['streams', 'stream'],
  ['consumers', 'consumer'],
] as const

export const authorityForm: NatsRule = {
  code: 'NATS_AUTHORITY_FORM',
  description: 'A stream or consumer is not exactly `{authority: contract, config}` or `{authority: external, artifact, pointer}`.',
  check(ctx) {
    for (const [section, kind] of KINDS) {
      for (const [key, resource] of Object.entries(ctx.section(section))) {
        if (!isObject(resource)) continue
        const at = ctx.pointer('x-nats-contract', section, key)
        const has = (k: string) => Object.hasOwn(resource, k)
        if (resource.authority === 'contract' && (!has('config') || has('artifact') || has('pointer'))) {
          ctx.report(this.code, at, `A contract-owned ${kind} has a config and no artifact or pointer.`)
        } else if (resource.authority === 'external' && (has('config') || !has('artifact') || !has('pointer'))) {
          ctx.report(this.code, at, `An external ${kind} names a locked artifact and a pointer into it, and has no config of its own (one authority per fact).`)
        }
      }
    }
  },
}

export const artifactPointer: NatsRule = {
  code: 'NATS_ARTIFACT_POINTER',
  description: "An external resource's pointer does not resolve in its locked artifact.",
  check(ctx) {
    for (const [section, kind] of KINDS) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        if (resolved?.authority === 'external' && resolved.config === undefined) {
          ctx.report(
            this.code,
            ctx.pointer('x-nats-contract', section, key, 'pointer'),
            `${resolved.pointer} selects nothing in ${resolved.file.file}; it must select the ${kind} configuration.`,
          )
        }
      }
    }
  },
}

function configRule(code: string, kind: 'stream' | 'consumer'): NatsRule {
  const section = kind === 'stream' ? 'streams' : 'consumers'
  return {
    code,
    description: `A ${kind} configuration is not the closed v0.2 configuration: a required field missing, a value not allowed, a limit or duration not a positive integer, or an unsupported field${kind === 'consumer' ? ' (push consumers included)' : ''}.`,
    check(ctx) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        if (!resolved || resolved.config === undefined) continue
        for (const problem of configProblems(kind, resolved.config))
          ctx.reportIn(resolved.file, code, resolved.pointer + problem.at, problem.message, { [kind]: key })
      }
    },
  }
}

export const streamConfig = configRule('NATS_STREAM_CONFIG', 'stream')
export const consumerConfig = configRule('NATS_CONSUMER_CONFIG', 'consumer')

function nameRule(code: string, section: 'streams' | 'consumers', field: 'name' | 'durable_name'): NatsRule {
  return {
    code,
    description: `A ${field} that is not a valid NATS ${section === 'streams' ? 'stream' : 'durable consumer'} name.`,
    check(ctx) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        if (!isObject(resolved?.config) || !Object.hasOwn(resolved.config, field)) continue
        const problem = nameProblem(resolved.config[field], field)
        if (problem) ctx.reportIn(resolved.file, code, `${resolved.pointer}/${field}`, `${problem}.`)
      }
    },
  }
}

export const streamName = nameRule('NATS_STREAM_NAME', 'streams', 'name')
export const durableName = nameRule('NATS_DURABLE_NAME', 'consumers', 'durable_name')

export const consumerStream: NatsRule = {
  code: 'NATS_UNKNOWN_STREAM',
  description: 'A consumer or a JetStream publish names a stream key the document does not define.',
  check(ctx) {
    const streams = ctx.section('streams')
    for (const [key, consumer] of Object.entries(ctx.section('consumers'))) {
      if (isObject(consumer) && typeof consumer.stream === 'string' && !Object.hasOwn(streams, consumer.stream)) {
        ctx.report(
          this.code,
          ctx.pointer('x-nats-contract', 'consumers', key, 'stream'),
          `Consumer ${JSON.stringify(key)} names stream ${JSON.stringify(consumer.stream)}, which x-nats-contract.streams does not define.`,
        )
      }
    }
    for (const [id, op] of Object.entries(ctx.section('operations'))) {
      const publish = isObject(op) && isObject(op.publish) ? op.publish : undefined
      if (publish?.api === 'jetstream' && typeof publish.stream === 'string' && !Object.hasOwn(streams, publish.stream)) {
        ctx.report(
          this.code,
          ctx.pointer('x-nats-contract', 'operations', id, 'publish', 'stream'),
          `Operation ${JSON.stringify(id)} publishes to stream ${JSON.stringify(publish.stream)}, which x-nats-contract.streams does not define.`,
        )
      }
    }
  },
}

export const oneAuthority: NatsRule = {
  code: 'NATS_DUPLICATE_AUTHORITY',
  description: 'Two streams with one name, or two consumers with one durable name on one stream: each fact has one authority.',
  check(ctx) {
    const seen = new Map<string, string>()
    for (const [section, field] of [
      ['streams', 'name'],
      ['consumers', 'durable_name'],
    ] as const) {
      for (const key of Object.keys(ctx.section(section))) {
        const resolved = resolveConfig(ctx, section, key)
        const name = isObject(resolved?.config) ? resolved.config[field] : undefined
        if (typeof name !== 'string') continue
        const stream = section === 'consumers' ? String((ctx.section('consumers')[key] as Record<string, unknown>).stream) : ''
        const fact = `${section}:${stream}:${name}`
        const other = seen.get(fact)
        if (other !== undefined)
          ctx.report(
            this.code,
            ctx.pointer('x-nats-contract', section, key),
            `${section === 'streams' ? 'Stream' : 'Durable consumer'} ${JSON.stringify(name)} is declared by both ${JSON.stringify(other)} and ${JSON.stringify(key)}; one fact has one authority.`,
          )
        else seen.set(fact, key)
      }
    }
  },
}
