/**
 * The NATS differ's interaction, pipeline and workflow rules, one fixture pair each
 * (fixtures/diff/nats/interactions/<rule>, and fixtures/diff/nats/workflows/<rule> as small bundles:
 * `new` fires the rule with the level, audience and locations asserted, `near` does not), on two
 * standalone applications made from the shop bundle (make-bases.py). Reversed pairs check the other
 * direction of each directional rule (a budget given back, a looser mode, a lowered quorum).
 */
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/core/compile.js'
import type { DiffFinding, DiffLevel, DiffLocation, DiffSide } from '../src/core/diff/types.js'
import { formats, natsFormat } from '../src/formats/index.js'
import { natsDiffer } from '../src/formats/nats/diff/index.js'
import type { NatsModel } from '../src/formats/nats/model.js'

const FIXTURES = resolve(__dirname, '../fixtures/diff/nats/interactions')
const compiler = new ContractCompiler({ formats })

async function side(file: string): Promise<DiffSide<NatsModel>> {
  const result = await compiler.model(file, natsFormat)
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return { file, model: result.model!, read: (f) => readFile(f, 'utf8').catch(() => undefined) }
}

const WORKFLOWS = resolve(__dirname, '../fixtures/diff/nats/workflows')
/** A version's document: a standalone file, or a small bundle's application for the workflow rules. */
const at = (rule: string, version: string) =>
  rule.startsWith('nats-workflow-') ? join(WORKFLOWS, rule, version, 'app', 'asyncapi.yaml') : join(FIXTURES, rule, `${version}.asyncapi.yaml`)
const diff = async (rule: string, old: string, next: string): Promise<DiffFinding[]> => natsDiffer.diff(await side(at(rule, old)), await side(at(rule, next)))

interface Case {
  level: DiffLevel
  audience?: string
  old?: [number, number]
  new?: [number, number]
  pointer?: string
}

const CASES: Record<string, Case> = {
  'nats-interaction-removed': { level: 'breaking', audience: 'invoker', old: [62, 7], new: [6, 3], pointer: '/x-nats-contract/interactions/approveRefund' },
  'nats-interaction-added': { level: 'info', new: [62, 7], pointer: '/x-nats-contract/interactions/approveRefund' },
  'nats-interaction-renamed': { level: 'breaking', audience: 'invoker', old: [62, 7], new: [62, 7], pointer: '/x-nats-contract/interactions/approveRefund' },
  'nats-interaction-operation-changed': {
    level: 'breaking',
    audience: 'peer',
    old: [64, 24],
    new: [64, 24],
    pointer: '/x-nats-contract/interactions/approveRefund/resultOperation',
  },
  'nats-interaction-input-changed': {
    level: 'breaking',
    audience: 'invoker',
    old: [67, 47],
    new: [67, 47],
    pointer: '/x-nats-contract/interactions/approveRefund/inputs/group/tokenType',
  },
  'nats-interaction-binding-changed': {
    level: 'warning',
    audience: 'peer',
    old: [78, 25],
    new: [78, 25],
    pointer: '/x-nats-contract/interactions/approveRefund/bindings/payload/~1requestedBy',
  },
  'nats-interaction-audience-changed': {
    level: 'warning',
    audience: 'peer',
    old: [86, 24],
    new: [86, 24],
    pointer: '/x-nats-contract/interactions/approveRefund/audience/includeSender',
  },
  'nats-interaction-dispatch-changed': {
    level: 'breaking',
    audience: 'invoker',
    old: [93, 25],
    new: [93, 25],
    pointer: '/x-nats-contract/interactions/assignCourier/dispatch/mode',
  },
  'nats-interaction-delivery-changed': {
    level: 'warning',
    audience: 'invoker',
    old: [98, 22],
    new: [98, 22],
    pointer: '/x-nats-contract/interactions/assignCourier/delivery/maxAttempts',
  },
  'nats-interaction-ownership-changed': {
    level: 'warning',
    audience: 'peer',
    old: [104, 54],
    new: [104, 54],
    pointer: '/x-nats-contract/interactions/assignCourier/delivery/ownership/leaseMs',
  },
  'nats-interaction-correlation-changed': {
    level: 'breaking',
    audience: 'peer',
    old: [110, 15],
    new: [110, 15],
    pointer: '/x-nats-contract/interactions/assignCourier/correlation/peer',
  },
  'nats-interaction-completion-changed': {
    level: 'breaking',
    audience: 'invoker',
    old: [100, 15],
    new: [100, 15],
    pointer: '/x-nats-contract/interactions/approveRefund/completion/mode',
  },
  'nats-interaction-quorum-changed': {
    level: 'breaking',
    audience: 'invoker',
    old: [103, 19],
    new: [103, 19],
    pointer: '/x-nats-contract/interactions/approveRefund/completion/fraction',
  },
  'nats-interaction-deadline-changed': {
    level: 'warning',
    audience: 'peer',
    old: [104, 21],
    new: [104, 21],
    pointer: '/x-nats-contract/interactions/approveRefund/completion/deadlineMs',
  },
  'nats-interaction-cancellation-changed': {
    level: 'breaking',
    audience: 'peer',
    old: [108, 20],
    new: [108, 20],
    pointer: '/x-nats-contract/interactions/approveRefund/completion/remaining',
  },
  'nats-interaction-aggregation-changed': {
    level: 'breaking',
    audience: 'invoker',
    old: [113, 20],
    new: [62, 7],
    pointer: '/x-nats-contract/interactions/approveRefund/aggregation',
  },
  'nats-pipeline-removed': { level: 'breaking', audience: 'invoker', old: [116, 7], new: [6, 3], pointer: '/x-nats-contract/pipelines/announceRefund' },
  'nats-pipeline-added': { level: 'info', new: [116, 7], pointer: '/x-nats-contract/pipelines/announceRefund' },
  'nats-pipeline-step-removed': {
    level: 'breaking',
    audience: 'subscriber',
    old: [120, 11],
    new: [118, 9],
    pointer: '/x-nats-contract/pipelines/announceRefund/steps/1',
  },
  'nats-pipeline-step-added': {
    level: 'warning',
    audience: 'invoker',
    old: [119, 9],
    new: [127, 11],
    pointer: '/x-nats-contract/pipelines/announceRefund/steps',
  },
  'nats-pipeline-steps-reordered': {
    level: 'breaking',
    audience: 'subscriber',
    old: [127, 11],
    new: [121, 11],
    pointer: '/x-nats-contract/pipelines/announceRefund/steps/2',
  },
  'nats-pipeline-step-changed': {
    level: 'warning',
    audience: 'subscriber',
    old: [122, 13],
    new: [122, 13],
    pointer: '/x-nats-contract/pipelines/announceRefund/steps/1/bindings',
  },
  'nats-workflow-removed': { level: 'breaking', audience: 'invoker', old: [129, 7], new: [6, 3], pointer: '/x-nats-contract/workflows/refundFlow' },
  'nats-workflow-added': { level: 'info', new: [129, 7], pointer: '/x-nats-contract/workflows/refundFlow' },
  'nats-workflow-schema-changed': {
    level: 'breaking',
    audience: 'invoker',
    old: [131, 20],
    new: [131, 20],
    pointer: '/x-nats-contract/workflows/refundFlow/inputSchema',
  },
  'nats-workflow-adapter-changed': {
    level: 'warning',
    audience: 'deployment',
    old: [131, 16],
    new: [131, 16],
    pointer: '/x-nats-contract/workflows/refundFlow/adapter',
  },
  'nats-workflow-steps-changed': {
    level: 'breaking',
    audience: 'peer',
    old: [129, 17],
    new: [129, 17],
    pointer: '/x-nats-contract/workflows/refundFlow/artifact',
  },
  'nats-interaction-payload-changed': {
    level: 'breaking',
    audience: 'peer',
    old: [62, 25],
    new: [62, 25],
    pointer: '/x-nats-contract/interactions/approveRefund/requestOperation',
  },
}

describe('nats differ: one fixture pair per interaction, pipeline and workflow rule', () => {
  for (const [rule, expected] of Object.entries(CASES)) {
    it(`${rule} fires on the edit, with level, audience and locations, and not on the near edit`, async () => {
      const findings = await diff(rule, 'old', 'new')
      const finding = findings.find((f) => f.rule === rule && f.level === expected.level)
      expect(finding, JSON.stringify(findings, null, 1)).toBeDefined()
      if (expected.audience) expect(finding!.audiences.map((a) => a.kind)).toContain(expected.audience)
      else expect(finding!.audiences).toEqual([])
      // What one version lacks is located there at a node enclosing where it is in the other.
      const enclosing = (location: DiffLocation | undefined, other: DiffLocation | undefined) =>
        expect(other!.pointer.startsWith(location!.pointer) && location!.pointer !== other!.pointer).toBe(true)
      if (expected.old) expect([finding!.old?.line, finding!.old?.column]).toEqual(expected.old)
      else enclosing(finding!.old, finding!.new)
      if (expected.new) expect([finding!.new?.line, finding!.new?.column]).toEqual(expected.new)
      else enclosing(finding!.new, finding!.old)
      expect((expected.old ? finding!.old : finding!.new)!.pointer).toBe(expected.pointer)
      expect(finding!.old?.file ?? at(rule, 'old')).toBe(at(rule, 'old'))
      expect(finding!.new?.file ?? at(rule, 'new')).toBe(at(rule, 'new'))
      expect(finding!.message).toMatch(/\.$/)
      const declared = natsDiffer.rules.find((r) => r.id === rule)!
      for (const f of findings.filter((x) => x.rule === rule)) {
        expect(declared.levels).toContain(f.level)
        for (const a of f.audiences) expect(declared.audiences).toContain(a.kind)
      }
      const near = await diff(rule, 'old', 'near')
      expect(near.filter((f) => f.rule === rule)).toEqual([])
    })
  }

  it('classifies the other direction of each directional rule', async () => {
    const one = async (rule: string, old: string, next: string, id = rule) => (await diff(rule, old, next)).filter((f) => f.rule === id)
    // A lowered quorum: nothing that succeeded fails, a warning; the same thresholds written differently: info.
    const lowered = await one('nats-interaction-quorum-changed', 'new', 'old')
    expect(lowered.map((f) => f.level)).toEqual(['warning'])
    expect(lowered[0]!.data?.witness).toEqual({ units: 3, old: 3, new: 2 })
    const spelled = await one('nats-interaction-deadline-changed', 'old', 'near', 'nats-interaction-quorum-changed')
    expect(spelled.map((f) => [f.level, f.audiences])).toEqual([['info', []]])
    // A looser completion mode: a warning for the invoker.
    const looser = await one('nats-interaction-completion-changed', 'new', 'old')
    expect(looser.map((f) => [f.level, f.audiences.map((a) => a.kind)])).toEqual([['warning', ['invoker']]])
    // Budgets given back: info.
    for (const rule of ['nats-interaction-delivery-changed', 'nats-interaction-ownership-changed', 'nats-interaction-deadline-changed'])
      expect((await one(rule, 'new', 'old')).map((f) => f.level)).toEqual(['info'])
    // Cooperative cancellation dropped: one warning (its operations go with it).
    const dropped = await one('nats-interaction-cancellation-changed', 'new', 'old')
    expect(dropped.map((f) => [f.level, f.old?.pointer])).toEqual([['warning', '/x-nats-contract/interactions/approveRefund/completion/remaining']])
    // An input type widened: info; an interaction renamed back: the same rule.
    expect((await one('nats-interaction-input-changed', 'new', 'old')).map((f) => f.level)).toEqual(['info'])
    expect((await one('nats-interaction-renamed', 'new', 'old')).map((f) => f.data?.interaction)).toEqual(['approveRefund'])
  })

  it('reads the locked workflow document through the side: a task added is a warning, one unreadable never assumed unchanged', async () => {
    const rule = 'nats-workflow-steps-changed'
    const added = (await diff(rule, 'new', 'old')).filter((f) => f.rule === rule)
    expect(added.map((f) => [f.level, f.data?.task])).toEqual([['warning', 'announce']])
    const old = await side(at(rule, 'old'))
    const next = await side(at(rule, 'new'))
    // The new version's workflow document is not there for the differ (outside the tree it reads).
    const hidden = { ...next, read: async (f: string) => (f.endsWith('refund.yaml') ? undefined : next.read(f)) }
    const unread = (await natsDiffer.diff(old, hidden)).filter((f) => f.rule === rule)
    expect(unread.map((f) => f.level)).toEqual(['warning'])
    expect(unread[0]!.message).toContain('not assumed safe')
  })

  it('reports every finding of every pair (new, near, reversed) at a level and for audiences its rule declares', async () => {
    const byId = new Map(natsDiffer.rules.map((r) => [r.id, r]))
    for (const rule of Object.keys(CASES)) {
      for (const [old, next] of [
        ['old', 'new'],
        ['old', 'near'],
        ['new', 'old'],
      ] as const) {
        for (const f of await diff(rule, old, next)) {
          const declared = byId.get(f.rule)
          expect(declared, f.rule).toBeDefined()
          expect(declared!.levels, `${rule} ${old}->${next}: ${f.rule}`).toContain(f.level)
          for (const a of f.audiences) expect(declared!.audiences, `${rule} ${old}->${next}: ${f.rule} ${a.kind}`).toContain(a.kind)
          if (f.level === 'info') expect(f.audiences, `${rule}: ${f.rule}`).toEqual([])
          else expect(f.audiences.length, `${rule}: ${f.rule}`).toBeGreaterThan(0)
        }
      }
    }
  }, 120_000)

  it('finds nothing between an application and itself', async () => {
    for (const base of ['votes', 'couriers']) {
      const file = join(FIXTURES, `${base}.asyncapi.yaml`)
      expect(await natsDiffer.diff(await side(file), await side(file))).toEqual([])
    }
  })
})
