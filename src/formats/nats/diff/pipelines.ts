/**
 * Pipelines (profile v0.2, "Composition and generation"): ordered steps, each an interaction or a
 * sending operation, run one after the other, each step's output the next one's input. Paired by
 * key; steps are paired by what they run (the interaction or operation, and its occurrence), so a
 * step removed, added or moved is named as such: a removed step no longer reaches its peers or
 * subscribers (breaking for them and for the invoker, who relied on its effect); a step added first
 * changes the invocation input (breaking for the invoker); one added later does more work (a
 * warning: whether the invoker relies on the pipeline doing no more is not provable); the same steps
 * in another order change which output feeds which step (breaking). A kept step whose bindings or
 * input adapter changed publishes other values (a warning, as an interaction's payload binding).
 * Cost: O(steps) per pipeline.
 */
import type { DiffAudience } from '../../../core/diff/types.js'
import { isObject } from '../document.js'
import { q, type Findings } from './context.js'
import { ptr } from './source.js'

type Step = Record<string, unknown>

const json = (value: unknown) => JSON.stringify(value)
const stepsOf = (data: Record<string, unknown>): Step[] => (Array.isArray(data.steps) ? data.steps.filter(isObject) : [])
/** What a step runs, as the sentence names it. */
const target = (s: Step) => (typeof s.interaction === 'string' ? `interaction ${q(s.interaction)}` : `operation ${q(String(s.operation))}`)

/** Each step's key: what it runs and its occurrence among the steps that run the same. */
function keys(steps: readonly Step[]): string[] {
  const seen = new Map<string, number>()
  return steps.map((s) => {
    const base = target(s)
    const n = (seen.get(base) ?? 0) + 1
    seen.set(base, n)
    return `${base}#${n}`
  })
}

/** Who a step reaches: an interaction's peers, or the subscribers of an operation's channel. */
function reached(f: Findings, s: Step): DiffAudience {
  if (typeof s.interaction === 'string') return { kind: 'peer', name: `${s.interaction} (peers)` }
  const op = String(s.operation)
  const channel = f.old.operations.get(op)?.channel ?? f.next.operations.get(op)?.channel ?? '?'
  return { kind: 'subscriber', name: `${channel}:${op} (peers)` }
}

export function diffPipelines(f: Findings): void {
  const before = new Map(f.old.model.pipelines.map((p) => [p.key, p]))
  const after = new Map(f.next.model.pipelines.map((p) => [p.key, p]))
  for (const [key, old] of before) {
    const now = after.get(key)
    if (now) {
      compareSteps(f, key, stepsOf(old.data), stepsOf(now.data))
      continue
    }
    f.add({
      rule: 'nats-pipeline-removed',
      level: 'breaking',
      audiences: [{ kind: 'invoker', name: key }],
      old: ptr.profile('pipelines', key),
      new: f.next.model.pipelines.length === 0 ? ptr.profile() : ptr.profile('pipelines'),
      message: `Pipeline ${q(key)} was removed: code that invokes it loses it.`,
      data: { pipeline: key },
    })
  }
  for (const key of after.keys()) {
    if (before.has(key)) continue
    f.add({
      rule: 'nats-pipeline-added',
      level: 'info',
      audiences: [],
      new: ptr.profile('pipelines', key),
      message: `Pipeline ${q(key)} was added.`,
      data: { pipeline: key },
    })
  }
}

function compareSteps(f: Findings, key: string, a: readonly Step[], b: readonly Step[]): void {
  const ka = keys(a)
  const kb = keys(b)
  const inNew = new Map(kb.map((k, i) => [k, i]))
  const inOld = new Map(ka.map((k, i) => [k, i]))
  const invoker: DiffAudience = { kind: 'invoker', name: key }
  const at = (i: number) => ptr.profile('pipelines', key, 'steps', i)
  ka.forEach((k, i) => {
    if (inNew.has(k)) return
    f.add({
      rule: 'nats-pipeline-step-removed',
      level: 'breaking',
      audiences: [invoker, reached(f, a[i]!)],
      old: at(i),
      new: ptr.profile('pipelines', key, 'steps'),
      message: `Pipeline ${q(key)}: step ${i + 1} (${target(a[i]!)}) was removed: it no longer runs, so who it reached receives nothing from the pipeline and the invoker loses its effect.`,
      data: { pipeline: key, step: i },
    })
  })
  kb.forEach((k, i) => {
    if (inOld.has(k)) return
    const first = i === 0
    f.add({
      rule: 'nats-pipeline-step-added',
      level: first ? 'breaking' : 'warning',
      audiences: [invoker],
      old: ptr.profile('pipelines', key, 'steps'),
      new: at(i),
      message: first
        ? `Pipeline ${q(key)}: step 1 (${target(b[i]!)}) was added first: the invocation input is now that step's, so invokers pass another value.`
        : `Pipeline ${q(key)}: step ${i + 1} (${target(b[i]!)}) was added: the pipeline does more work; whether its invoker relies on it doing no more cannot be proven either way (not assumed safe).`,
      data: { pipeline: key, step: i },
    })
  })
  const keptOld = ka.filter((k) => inNew.has(k))
  const keptNew = kb.filter((k) => inOld.has(k))
  if (json(keptOld) !== json(keptNew)) {
    const moved = keptNew.findIndex((k, i) => keptOld[i] !== k)
    const newIndex = kb.indexOf(keptNew[moved]!)
    f.add({
      rule: 'nats-pipeline-steps-reordered',
      level: 'breaking',
      audiences: [invoker, ...keptNew.map((k) => reached(f, b[kb.indexOf(k)]!))],
      old: at(inOld.get(keptNew[moved]!)!),
      new: at(newIndex),
      message: `Pipeline ${q(key)}: its steps run in another order (${keptNew.map((k) => k.replace(/#\d+$/, '')).join(', ')}): each step's input is another step's output, and effects happen in another order.`,
      data: { pipeline: key, old: keptOld, new: keptNew },
    })
  }
  kb.forEach((k, i) => {
    const j = inOld.get(k)
    if (j === undefined) return
    const x = a[j]!
    const y = b[i]!
    for (const member of ['bindings', 'inputAdapter']) {
      if (json(x[member]) === json(y[member])) continue
      f.add({
        rule: 'nats-pipeline-step-changed',
        level: 'warning',
        audiences: [reached(f, y)],
        old: ptr.profile('pipelines', key, 'steps', j, ...(x[member] === undefined ? [] : [member])),
        new: ptr.profile('pipelines', key, 'steps', i, ...(y[member] === undefined ? [] : [member])),
        message: `Pipeline ${q(key)}: step ${i + 1} (${target(y)}) has other ${member}: it sends other values of the same schema; whether who receives them breaks cannot be proven either way (not assumed safe).`,
        data: { pipeline: key, step: i, member },
      })
    }
  })
}
