/**
 * The profile's other sections. What is cheap and certain is compared by meaning: the contract id
 * and deployment binding (another identity or system: breaking for every party and the
 * deployment), links (one removed breaks both ends), imports (a locked contract's version moved).
 * Adapters and token types no channel uses are compared as JSON: any change is a warning
 * `nats-section-changed` naming the section and key, never silently ignored (an unknown
 * implication is not assumed safe); an addition is info. Interactions, pipelines and workflows are
 * classified by their own parts (interactions.ts, pipelines.ts, workflows.ts). O(document).
 */
import type { TokenType } from '../../../runtime/nats/tokens.js'
import { sameTokenLanguage } from '../containment.js'
import type { NatsModel } from '../model.js'
import { isResponder, q, type Findings } from './context.js'
import { ptr } from './source.js'

const json = (value: unknown) => JSON.stringify(value)

export function diffSections(f: Findings): void {
  const a = f.old.model
  const b = f.next.model
  if (a.contract.id !== b.contract.id) {
    f.add({
      rule: 'nats-contract-id-changed',
      level: 'breaking',
      audiences: [{ kind: 'deployment' }, { kind: 'publisher' }, { kind: 'subscriber' }],
      old: ptr.profile('contract'),
      new: ptr.profile('contract'),
      message: `The contract id changes from ${q(a.contract.id)} to ${q(b.contract.id)}: applications that import or link it by id lose it.`,
    })
  }
  if (a.deployment.binding !== b.deployment.binding) {
    f.add({
      rule: 'nats-deployment-binding-changed',
      level: 'breaking',
      audiences: [{ kind: 'deployment', name: b.deployment.binding }],
      old: ptr.profile('deployment', 'binding'),
      new: ptr.profile('deployment', 'binding'),
      message: `The deployment binding changes from ${q(a.deployment.binding)} to ${q(b.deployment.binding)}: another NATS system, account or JetStream domain, whose streams, consumers and peers are not the old ones.`,
    })
  }
  if (a.deployment.minimumServerVersion !== b.deployment.minimumServerVersion) {
    f.add({
      rule: 'nats-server-version-changed',
      level: 'warning',
      audiences: [{ kind: 'deployment', name: b.deployment.binding }],
      old: ptr.profile('deployment', 'minimumServerVersion'),
      new: ptr.profile('deployment', 'minimumServerVersion'),
      message: `The minimum NATS server version changes from ${q(a.deployment.minimumServerVersion)} to ${q(b.deployment.minimumServerVersion)}: the deployment's servers must satisfy it.`,
    })
  }
  diffLinks(f, a, b)
  diffImports(f, a, b)
  diffTokenTypes(f, a, b)
  diffKeyed(f, 'adapters')
}

function linkKey(l: NatsModel['links'][number]): string {
  return json([l.send.contract, l.send.operation, l.receive.contract, l.receive.operation])
}

function diffLinks(f: Findings, a: NatsModel, b: NatsModel): void {
  const after = new Map(b.links.map((l, i) => [linkKey(l), i]))
  const before = new Map(a.links.map((l, i) => [linkKey(l), i]))
  a.links.forEach((l, i) => {
    if (after.has(linkKey(l))) return
    const local = l.send.contract === a.contract.id ? l.send : l.receive
    // A request/reply link's ends are a requester and a responder (an outside pass: `--audience
    // requester` dropped the link's removal while keeping the rest of the change).
    const op = f.old.operations.get(local.operation)
    const rr = op !== undefined && (op.action === 'send' ? op.requestReply !== undefined : isResponder(f.old, op))
    f.add({
      rule: 'nats-link-removed',
      level: 'breaking',
      audiences: [
        { kind: rr ? 'requester' : 'publisher', name: `${l.send.contract}:${l.send.operation}` },
        { kind: rr ? 'responder' : 'subscriber', name: `${l.receive.contract}:${l.receive.operation}` },
      ],
      old: ptr.profile('links', i),
      new: ptr.profile(),
      message: `The link from ${q(`${l.send.contract}:${l.send.operation}`)} to ${q(`${l.receive.contract}:${l.receive.operation}`)} was removed: the two ends are no longer held to one subject language and payload.`,
      data: { link: l },
      scope: { operation: local.operation, in: 'old' },
    })
  })
  b.links.forEach((l, i) => {
    if (before.has(linkKey(l))) return
    f.add({
      rule: 'nats-link-added',
      level: 'info',
      audiences: [],
      new: ptr.profile('links', i),
      message: `A link from ${q(`${l.send.contract}:${l.send.operation}`)} to ${q(`${l.receive.contract}:${l.receive.operation}`)} was added.`,
      data: { link: l },
    })
  })
}

function diffImports(f: Findings, a: NatsModel, b: NatsModel): void {
  const after = new Map(b.imports.map((i) => [i.alias, i]))
  for (const imp of a.imports) {
    const now = after.get(imp.alias)
    if (now && now.contract === imp.contract && now.version === imp.version && now.path === imp.path && now.sha256 === imp.sha256) continue
    f.add({
      rule: 'nats-import-changed',
      level: 'warning',
      audiences: [{ kind: 'deployment' }],
      old: ptr.profile('imports', imp.alias),
      new: now ? ptr.profile('imports', imp.alias) : ptr.profile(),
      message: now
        ? `Import ${q(imp.alias)} now locks ${q(`${now.contract}@${now.version}`)} (${now.sha256.slice(0, 12)}…) instead of ${q(`${imp.contract}@${imp.version}`)} (${imp.sha256.slice(0, 12)}…): the operations linked through it are compared in that contract's own diff.`
        : `Import ${q(imp.alias)} (${q(`${imp.contract}@${imp.version}`)}) was removed.`,
    })
  }
  for (const imp of b.imports) {
    if (a.imports.some((i) => i.alias === imp.alias)) continue
    f.add({
      rule: 'nats-import-changed',
      level: 'info',
      audiences: [],
      new: ptr.profile('imports', imp.alias),
      message: `Import ${q(imp.alias)} (${q(`${imp.contract}@${imp.version}`)}) was added.`,
    })
  }
}

/** Token types whose language changed and that no channel uses (a channel's are compared through its subjects). */
function diffTokenTypes(f: Findings, a: NatsModel, b: NatsModel): void {
  const used = new Set<string>()
  for (const c of [...a.channels, ...b.channels]) for (const t of Object.values(c.parameters)) used.add(t)
  for (const name of Object.keys(a.tokenTypes)) {
    if (used.has(name)) continue
    const x: TokenType = a.tokenTypes[name]!
    const y: TokenType | undefined = b.tokenTypes[name]
    if (y !== undefined && sameTokenLanguage(x, y)) continue
    f.add({
      rule: 'nats-section-changed',
      level: 'warning',
      audiences: [{ kind: 'publisher' }, { kind: 'subscriber' }],
      old: ptr.profile('tokenTypes', name),
      new: y === undefined ? ptr.profile('tokenTypes') : ptr.profile('tokenTypes', name),
      message: `Section tokenTypes: token type ${q(name)} ${y === undefined ? 'was removed' : 'denotes other tokens'}; no channel uses it, and what else reads it (interaction inputs) was not compared.`,
      data: { section: 'tokenTypes', key: name },
    })
  }
}

function diffKeyed(f: Findings, section: 'adapters'): void {
  const key = (x: { key?: string; id?: string }) => x.key ?? x.id ?? ''
  const view = (x: unknown) => {
    const { source: _source, payloadSchema: _schema, ...rest } = x as Record<string, unknown>
    return json(rest)
  }
  const before = new Map((f.old.model[section] as Array<{ key?: string; id?: string }>).map((x) => [key(x), x]))
  const after = new Map((f.next.model[section] as Array<{ key?: string; id?: string }>).map((x) => [key(x), x]))
  for (const [k, x] of before) {
    const y = after.get(k)
    if (y !== undefined && view(x) === view(y)) continue
    f.add({
      rule: 'nats-section-changed',
      level: 'warning',
      audiences: [{ kind: 'deployment' }],
      old: ptr.profile(section, k),
      new: y === undefined ? ptr.profile(section) : ptr.profile(section, k),
      message: `Section ${section}: ${q(k)} ${y === undefined ? 'was removed' : 'changed'}; the differ does not classify this section, and an unknown implication is not assumed safe.`,
      data: { section, key: k },
    })
  }
  for (const [k] of after) {
    if (before.has(k)) continue
    f.add({
      rule: 'nats-section-changed',
      level: 'info',
      audiences: [],
      new: ptr.profile(section, k),
      message: `Section ${section}: ${q(k)} was added.`,
      data: { section, key: k },
    })
  }
}
