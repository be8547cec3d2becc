import { isObject } from '../document.js'
import { resolveConfig } from '../resources.js'
import type { NatsContext } from '../context.js'
import { otherContexts } from './bundle.js'
import { natsRule, type NatsReport } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one map of the names in the document; across the bundle O(documents x resources), one map of owned facts per document. */

export const oneAuthority = natsRule({
  code: 'NATS_DUPLICATE_AUTHORITY',
  description:
    'Two streams with one name, or two consumers with one durable name on one stream, in the document; or a stream or consumer the document owns (`authority: contract`) that another contract of its bundle owns too: each fact has one authority.',
  check(ctx, report) {
    bundleAuthority(ctx, report)
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
          report(
            ctx.pointer('x-nats-contract', section, key),
            `${section === 'streams' ? 'Stream' : 'Durable consumer'} ${JSON.stringify(name)} is declared by both ${JSON.stringify(other)} and ${JSON.stringify(key)}; one fact has one authority.`,
          )
        else seen.set(fact, key)
      }
    }
  },
})

/** A contract-owned resource's identity: a stream by name, a consumer by its stream's name and durable name. */
function ownedFacts(ctx: NatsContext): Map<string, { section: 'streams' | 'consumers'; key: string; name: string }> {
  const out = new Map<string, { section: 'streams' | 'consumers'; key: string; name: string }>()
  for (const [section, field] of [
    ['streams', 'name'],
    ['consumers', 'durable_name'],
  ] as const) {
    for (const [key, resource] of Object.entries(ctx.section(section))) {
      if (!isObject(resource) || resource.authority !== 'contract' || !isObject(resource.config)) continue
      const name = resource.config[field]
      if (typeof name !== 'string') continue
      let fact = `stream ${JSON.stringify(name)}`
      if (section === 'consumers') {
        const stream = typeof resource.stream === 'string' ? resolveConfig(ctx, 'streams', resource.stream)?.config : undefined
        if (!isObject(stream) || typeof stream.name !== 'string') continue
        fact = `durable consumer ${JSON.stringify(name)} on stream ${JSON.stringify(stream.name)}`
      }
      if (!out.has(fact)) out.set(fact, { section, key, name })
    }
  }
  return out
}

/**
 * "Each fact has one authority", across the bundle: a stream (by name) or a durable consumer (by
 * stream name and durable name) that this document owns and a document of another contract of the
 * bundle owns too is refused in this document (whichever of the two is compiled, each is refused);
 * the others declare it `authority: external`. Documents of this contract (other versions, or the
 * same bytes at another path) are one authority. Deployment bindings are not compared: whether two
 * bindings map to one account is an operator fact the compiler cannot see, so an unknown mapping is
 * not assumed to separate them. O(documents x resources), one map of facts per document.
 */
function bundleAuthority(ctx: NatsContext, report: NatsReport): void {
  const mine = ownedFacts(ctx)
  if (mine.size === 0) return
  const contract = ctx.profile.contract
  const reported = new Set<string>()
  for (const other of otherContexts(ctx)) {
    if (other.profile.contract === contract) continue
    for (const [fact, theirs] of ownedFacts(other)) {
      const own = mine.get(fact)
      if (!own || reported.has(fact)) continue
      reported.add(fact)
      report(
        ctx.pointer('x-nats-contract', own.section, own.key),
        `The ${fact} is owned (authority: contract) both here and by contract ${JSON.stringify(other.profile.contract)} (${other.main.file}, ${own.section}.${theirs.key}); each fact has one authority: all but one declare it authority: external.`,
        { other: other.main.file },
      )
    }
  }
}
