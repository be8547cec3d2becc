/**
 * Interactions (profile v0.2, "Interaction inputs and bindings" to "Completion and cancellation"),
 * classified by who each change breaks: the invoker (the application code that invokes the
 * interaction through its generated descriptor, and the executor that runs it), the participating
 * peers (who receive its requests and send its results, cancel replies included) and the deployment
 * (durable state, delivery and ownership adapters). Each interaction is paired by id (a removed one
 * whose whole definition reappears under another id is a rename); each member is compared by its
 * meaning: a quorum threshold by the threshold it gives for every admitted unit count, a completion
 * mode by strictness, budgets (attempts, deadline, graces, lease) by direction. `warning` only where
 * a break depends on what the differ cannot see (peers' timing, adapters' answers), and the sentence
 * says so. The request and result payloads are compared by payloads.ts and headers.ts: their findings
 * on an interaction's channels are relayed here for its invoker and peers.
 * Cost: O(interactions x members), a quorum threshold compared over at most QUORUM_SCAN unit counts.
 */
import { diffSchemas } from '../../../core/diff/schema-diff.js'
import { levelFor, type SchemaEffect } from '../../../core/diff/schema-diff-types.js'
import type { DiffAudience, DiffLevel } from '../../../core/diff/types.js'
import type { TokenType } from '../../../runtime/nats/tokens.js'
import { tokenTypeContains } from '../containment.js'
import { isObject } from '../document.js'
import type { InteractionModel } from '../model.js'
import { q, type Draft, type Findings, type Version } from './context.js'
import { schemaSide, valueAt } from './payloads.js'
import { ptr } from './source.js'

type Data = Record<string, unknown>
const RANK: Record<DiffLevel, number> = { info: 0, warning: 1, breaking: 2 }
/** A value as a sentence quotes it (JSON; `none` for an absent member). */
const json = (value: unknown) => (value === undefined ? 'none' : JSON.stringify(value))
const obj = (value: unknown): Data => (isObject(value) ? value : {})
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)

const invoker = (id: string): DiffAudience => ({ kind: 'invoker', name: id })
const peers = (id: string): DiffAudience => ({ kind: 'peer', name: `${id} (peers)` })
const deployment = (id: string): DiffAudience => ({ kind: 'deployment', name: id })

/** What the model keeps of an interaction, as compared (the generated request channel export and runtime schema are derived). */
function view(i: InteractionModel): Data {
  const { id: _id, requestChannel: _channel, ...rest } = i.data
  return rest
}

class Pair {
  constructor(
    readonly f: Findings,
    readonly id: string,
    readonly a: Data,
    readonly b: Data,
  ) {}

  at(...tokens: Array<string | number>): string {
    return ptr.profile('interactions', this.id, ...tokens)
  }

  /** The deepest pointer that exists in the version (its nearest existing ancestor otherwise). */
  near(v: Version, tokens: Array<string | number>): string {
    for (let n = tokens.length; n > 0; n--) {
      const pointer = this.at(...tokens.slice(0, n))
      if (valueAt(v.doc.value, pointer) !== undefined) return pointer
    }
    return this.at()
  }

  add(rule: string, level: DiffLevel, audiences: DiffAudience[], tokens: Array<string | number>, message: string, data?: Data): void {
    this.f.add({
      rule,
      level,
      audiences: level === 'info' ? [] : audiences,
      old: this.near(this.f.old, tokens),
      new: this.near(this.f.next, tokens),
      message: `Interaction ${q(this.id)}: ${message}`,
      data: { interaction: this.id, ...data },
    })
  }
}

export function diffInteractions(f: Findings): void {
  const before = new Map(f.old.model.interactions.map((i) => [i.id, i]))
  const after = new Map(f.next.model.interactions.map((i) => [i.id, i]))
  const added = [...after.keys()].filter((id) => !before.has(id))
  const renamedTo = new Set<string>()
  for (const [id, old] of before) {
    const now = after.get(id)
    if (now) {
      comparePair(new Pair(f, id, view(old), view(now)))
      continue
    }
    const twin = added.find((n) => !renamedTo.has(n) && json(view(after.get(n)!)) === json(view(old)))
    if (twin !== undefined) {
      renamedTo.add(twin)
      f.add({
        rule: 'nats-interaction-renamed',
        level: 'breaking',
        audiences: [invoker(id)],
        old: ptr.profile('interactions', id),
        new: ptr.profile('interactions', twin),
        message: `Interaction ${q(id)} is now called ${q(twin)} with the same definition: code that invokes it by its old name (its generated descriptor) no longer finds it; its peers see the same messages.`,
        data: { interaction: twin, was: id },
      })
      continue
    }
    f.add({
      rule: 'nats-interaction-removed',
      level: 'breaking',
      audiences: [invoker(id), peers(id)],
      old: ptr.profile('interactions', id),
      new: valueAt(f.next.doc.value, ptr.profile('interactions')) === undefined ? ptr.profile() : ptr.profile('interactions'),
      message: `Interaction ${q(id)} was removed: code that invokes it loses it, and its peers receive no more of its requests.`,
      data: { interaction: id },
    })
  }
  for (const id of added) {
    if (renamedTo.has(id)) continue
    f.add({
      rule: 'nats-interaction-added',
      level: 'info',
      audiences: [],
      new: ptr.profile('interactions', id),
      message: `Interaction ${q(id)} was added.`,
      data: { interaction: id },
    })
  }
}

function comparePair(p: Pair): void {
  // An input's schema is a component reference: its content can change while the interaction does not.
  compareInputs(p)
  if (json(p.a) === json(p.b)) return
  compareOperations(p)
  compareBindings(p)
  compareAudience(p)
  compareDispatch(p)
  compareDelivery(p)
  compareOwnership(p)
  compareCorrelation(p)
  compareCompletion(p)
  compareQuorum(p)
  compareCancellation(p)
  compareAggregation(p)
}

const OPERATIONS = ['requestOperation', 'resultOperation', 'receiverOperation', 'senderOperation'] as const

function compareOperations(p: Pair): void {
  for (const member of OPERATIONS) {
    const x = p.a[member]
    const y = p.b[member]
    if (json(x) === json(y)) continue
    const was = x === undefined ? 'none' : q(String(x))
    const now = y === undefined ? 'none' : q(String(y))
    p.add(
      'nats-interaction-operation-changed',
      'breaking',
      [invoker(p.id), peers(p.id)],
      [member],
      `${member} changes from ${was} to ${now}: its peers ${member === 'resultOperation' || member === 'senderOperation' ? 'send its results' : 'receive its requests'} on another operation (or none), and the executor's wiring changes with it.`,
      { member },
    )
  }
}

function compareInputs(p: Pair): void {
  const x = obj(p.a.inputs)
  const y = obj(p.b.inputs)
  for (const name of new Set([...Object.keys(x), ...Object.keys(y)])) {
    const before = x[name] === undefined ? undefined : obj(x[name])
    const after = y[name] === undefined ? undefined : obj(y[name])
    const bothSchemas = typeof before?.schema === 'string' && typeof after?.schema === 'string'
    if (json(before) === json(after) && !bothSchemas) continue
    const argument = (i: Data | undefined) => i?.source === 'argument'
    if (!before || !after) {
      const matters = argument(before) || argument(after)
      p.add(
        'nats-interaction-input-changed',
        matters ? 'breaking' : 'info',
        [invoker(p.id)],
        ['inputs', name],
        after
          ? `input ${q(name)} was added${matters ? ': invokers must now pass it, and calls without it are refused' : ' (generated by the executor)'}.`
          : `input ${q(name)} was removed${matters ? ': invokers that pass it are refused' : ' (it was generated by the executor)'}.`,
        { input: name },
      )
      continue
    }
    if (before.source !== after.source) {
      p.add(
        'nats-interaction-input-changed',
        'breaking',
        [invoker(p.id)],
        ['inputs', name, 'source'],
        `input ${q(name)} changes source from ${q(String(before.source))} to ${q(String(after.source))}: who supplies it changes.`,
        {
          input: name,
        },
      )
      continue
    }
    const ta = before.tokenType as TokenType | undefined
    const tb = after.tokenType as TokenType | undefined
    if (ta && tb) {
      const narrowed = !tokenTypeContains(tb, ta)
      const widened = !tokenTypeContains(ta, tb)
      if (!narrowed && !widened) continue
      p.add(
        'nats-interaction-input-changed',
        narrowed ? 'breaking' : 'info',
        [invoker(p.id)],
        ['inputs', name, 'tokenType'],
        narrowed
          ? `input ${q(name)} accepts fewer tokens (${q(String(before.tokenTypeName))} to ${q(String(after.tokenTypeName))}): invokers passing a token only the old type accepts are refused.`
          : `input ${q(name)} accepts more tokens (${q(String(before.tokenTypeName))} to ${q(String(after.tokenTypeName))}): every old value is still accepted.`,
        { input: name },
      )
      continue
    }
    if (typeof before.schema === 'string' && typeof after.schema === 'string') {
      const level = schemaLevel(p, before.schema, after.schema, 'sends')
      if (level === 'info' && before.schema === after.schema) continue
      p.add(
        'nats-interaction-input-changed',
        level,
        [invoker(p.id)],
        ['inputs', name, 'schema'],
        level === 'info'
          ? `input ${q(name)}'s schema changes from ${q(before.schema)} to ${q(after.schema)} and accepts every value it did.`
          : `input ${q(name)}'s schema changes from ${q(before.schema)} to ${q(after.schema)}: ${level === 'breaking' ? 'it refuses values the old one accepted, which invokers pass' : 'whether it refuses a value invokers pass is not proven either way (not assumed safe)'}.`,
        { input: name },
      )
      continue
    }
    p.add(
      'nats-interaction-input-changed',
      'breaking',
      [invoker(p.id)],
      ['inputs', name],
      `input ${q(name)} changes between a token type and a schema: invokers pass another kind of value.`,
      {
        input: name,
      },
    )
  }
}

/** The level of replacing one local component schema by another, for a party that sends (invoker's input) or receives (its output). */
function schemaLevel(p: Pair, oldRef: string, newRef: string, role: 'sends' | 'receives'): DiffLevel {
  const pointer = (ref: string) => (ref.startsWith('#') ? ref.slice(1) : undefined)
  const a = pointer(oldRef)
  const b = pointer(newRef)
  if (a === undefined || b === undefined) return oldRef === newRef ? 'info' : 'warning'
  let effects: SchemaEffect[]
  try {
    effects = diffSchemas(schemaSide(p.f.old, a), schemaSide(p.f.next, b)).map((c) => c.effect)
  } catch {
    effects = ['unknown']
  }
  let level: DiffLevel = 'info'
  for (const e of effects) if (RANK[levelFor(e, role)] > RANK[level]) level = levelFor(e, role)
  return level
}

function compareBindings(p: Pair): void {
  for (const part of ['subject', 'payload'] as const) {
    const x = obj(obj(p.a.bindings)[part])
    const y = obj(obj(p.b.bindings)[part])
    for (const target of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (json(x[target]) === json(y[target])) continue
      const breaks = part === 'subject'
      p.add(
        'nats-interaction-binding-changed',
        breaks ? 'breaking' : 'warning',
        [peers(p.id)],
        ['bindings', part, target],
        breaks
          ? `the subject parameter ${q(target)} is bound from ${json(y[target])} instead of ${json(x[target])}: requests reach peers on other subjects than the ones they subscribed to.`
          : `the payload field ${q(target)} is bound from ${json(y[target])} instead of ${json(x[target])}: the request schema still holds, but the field carries another value; whether a peer's handling breaks cannot be proven either way (not assumed safe).`,
        { part, target },
      )
    }
  }
}

function compareAudience(p: Pair): void {
  const x = obj(p.a.audience)
  const y = obj(p.b.audience)
  for (const field of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (json(x[field]) === json(y[field])) continue
    const change = `audience ${field} changes from ${json(x[field])} to ${json(y[field])}`
    if (field === 'kind' || field === 'input' || field === 'scopeInput') {
      p.add(
        'nats-interaction-audience-changed',
        'breaking',
        [invoker(p.id)],
        ['audience', field],
        `${change}: invokers name who is asked through another argument.`,
        { field },
      )
    } else {
      p.add(
        'nats-interaction-audience-changed',
        'warning',
        [peers(p.id)],
        ['audience', field],
        `${change}: other peers may be asked or allowed; who depends on membership and policy at admission, which the differ cannot see (not assumed safe).`,
        { field },
      )
    }
  }
}

function compareDispatch(p: Pair): void {
  const x = obj(p.a.dispatch)
  const y = obj(p.b.dispatch)
  for (const field of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (json(x[field]) === json(y[field])) continue
    const change = `dispatch ${field} changes from ${json(x[field])} to ${json(y[field])}`
    if (field === 'selector') {
      p.add(
        'nats-interaction-dispatch-changed',
        'warning',
        [peers(p.id)],
        ['dispatch', field],
        `${change}: another adapter picks the eligible peer; which one it picks cannot be proven (not assumed safe).`,
        {
          field,
        },
      )
    } else {
      p.add(
        'nats-interaction-dispatch-changed',
        'breaking',
        [invoker(p.id), peers(p.id)],
        ['dispatch', field],
        `${change}: peers receive requests ${field === 'mode' ? 'in another pattern (one, each, one eligible, a manifest)' : 'under other branch identities or subjects'}, and what the invoker passes changes with it.`,
        { field },
      )
    }
  }
}

/** A budget compared by direction: `cut` says whether the change takes budget away. */
function budget(p: Pair, rule: string, tokens: string[], what: string, cut: 'lower' | 'higher', audiences: DiffAudience[], consequence: string): void {
  const at = (d: Data) => num(tokens.reduce<unknown>((node, t) => obj(node)[t], d))
  const x = at(p.a)
  const y = at(p.b)
  if (x === undefined || y === undefined || x === y) return
  const taken = cut === 'lower' ? y < x : y > x
  p.add(
    rule,
    taken ? 'warning' : 'info',
    audiences,
    tokens,
    taken
      ? `${what} changes from ${x} to ${y}: ${consequence}; whether that happens depends on run-time timing and failures the differ cannot see (not assumed safe).`
      : `${what} changes from ${x} to ${y}, which gives more room.`,
    { field: tokens.at(-1), old: x, new: y },
  )
}

function compareDelivery(p: Pair): void {
  const x = obj(p.a.delivery)
  const y = obj(p.b.delivery)
  for (const field of ['mode', 'state', 'restart', 'adapter', 'stateStore']) {
    if (json(x[field]) === json(y[field])) continue
    p.add(
      'nats-interaction-delivery-changed',
      'breaking',
      [deployment(p.id), peers(p.id)],
      ['delivery', field],
      `delivery ${field} changes from ${json(x[field])} to ${json(y[field])}: the deployment's durable state, outbox and delivery adapter change, and work open under the old delivery is not resumed under the new one.`,
      { field },
    )
  }
  budget(
    p,
    'nats-interaction-delivery-changed',
    ['delivery', 'maxAttempts'],
    'the retry budget (maxAttempts)',
    'lower',
    [invoker(p.id)],
    'a branch that succeeded on a later attempt now fails',
  )
  budget(
    p,
    'nats-interaction-delivery-changed',
    ['delivery', 'retryBackoffMs'],
    'the retry backoff',
    'higher',
    [invoker(p.id)],
    'fewer attempts fit before the deadline',
  )
  for (const field of ['recoveryGraceMs', 'settlementGraceMs'])
    budget(
      p,
      'nats-interaction-delivery-changed',
      ['delivery', field],
      field,
      'lower',
      [deployment(p.id)],
      'work recovered or settled later than the new grace is marked indeterminate',
    )
}

function compareOwnership(p: Pair): void {
  const x = obj(p.a.delivery).ownership
  const y = obj(p.b.delivery).ownership
  if (json(x) === json(y)) return
  if (!isObject(x) || !isObject(y) || x.adapter !== y.adapter) {
    p.add(
      'nats-interaction-ownership-changed',
      'breaking',
      [deployment(p.id), peers(p.id)],
      ['delivery', 'ownership'],
      `ownership changes from ${json(x)} to ${json(y)}: claims and their fencing tokens are kept by another adapter (or none), so open claims and fenced results do not carry over.`,
    )
    return
  }
  budget(
    p,
    'nats-interaction-ownership-changed',
    ['delivery', 'ownership', 'leaseMs'],
    'the claim lease (leaseMs)',
    'lower',
    [peers(p.id)],
    'a peer slower than the new lease loses its claim and its result is refused as stale',
  )
  budget(
    p,
    'nats-interaction-ownership-changed',
    ['delivery', 'ownership', 'renewEveryMs'],
    'the lease renewal period',
    'higher',
    [peers(p.id)],
    'a claim renewed later may lapse',
  )
}

function compareCorrelation(p: Pair): void {
  const x = obj(p.a.correlation)
  const y = obj(p.b.correlation)
  for (const field of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (json(x[field]) === json(y[field])) continue
    const verifier = field === 'verifier'
    p.add(
      'nats-interaction-correlation-changed',
      verifier ? 'warning' : 'breaking',
      [peers(p.id)],
      ['correlation', field],
      verifier
        ? `the result verifier changes from ${json(x[field])} to ${json(y[field])}: whether it admits the results the old one admitted cannot be proven (not assumed safe).`
        : `correlation ${field} is read from ${json(y[field])} instead of ${json(x[field])}: results peers send with the old location are not matched to their operation.`,
      { field },
    )
  }
}

/** Completion modes by how many successful units they need (all-terminal and none are not on this scale). */
const STRICTNESS: Record<string, number> = { 'first-success': 1, quorum: 2, 'all-successful': 3 }

function compareCompletion(p: Pair): void {
  const x = obj(p.a.completion)
  const y = obj(p.b.completion)
  if (x.mode !== y.mode) {
    const a = Object.hasOwn(STRICTNESS, String(x.mode)) ? STRICTNESS[String(x.mode)] : undefined
    const b = Object.hasOwn(STRICTNESS, String(y.mode)) ? STRICTNESS[String(y.mode)] : undefined
    const looser = a !== undefined && b !== undefined && b < a
    p.add(
      'nats-interaction-completion-changed',
      looser ? 'warning' : 'breaking',
      [invoker(p.id)],
      ['completion', 'mode'],
      looser
        ? `completion mode changes from ${json(x.mode)} to the looser ${json(y.mode)}: no invocation that succeeded fails, but one the old mode failed now succeeds with fewer successes, which the invoker may rely on not happening (not assumed safe).`
        : `completion mode changes from ${json(x.mode)} to ${a !== undefined && b !== undefined ? 'the stricter ' : ''}${json(y.mode)}: an invocation the old mode decided as success ${a !== undefined && b !== undefined ? 'fails under the new one' : 'is decided by another rule'}.`,
      { field: 'mode' },
    )
  }
  for (const field of ['unit', 'success', 'onTimeout', 'onImpossible', 'lateResults', 'waitFor']) {
    if (json(x[field]) === json(y[field])) continue
    const who = field === 'success' ? [invoker(p.id), peers(p.id)] : [invoker(p.id)]
    p.add(
      'nats-interaction-completion-changed',
      'breaking',
      who,
      ['completion', field],
      `completion ${field} changes from ${json(x[field])} to ${json(y[field])}: ${
        field === 'success'
          ? 'a result peers send as a success under the old predicate is not one under the new'
          : field === 'waitFor'
            ? 'the invocation completes at another point (decision or settlement), and what follows it starts then'
            : 'the invoker receives another outcome for the same results'
      }.`,
      { field },
    )
  }
  budget(
    p,
    'nats-interaction-deadline-changed',
    ['completion', 'deadlineMs'],
    'the deadline (deadlineMs)',
    'lower',
    [peers(p.id), invoker(p.id)],
    'a peer that answered in time may now be late, and its result discarded',
  )
  if (x.remaining !== y.remaining) {
    const cooperative = y.remaining === 'cooperative'
    p.add(
      'nats-interaction-cancellation-changed',
      cooperative ? 'breaking' : 'warning',
      [peers(p.id)],
      ['completion', 'remaining'],
      cooperative
        ? `remaining branches change from ${json(x.remaining)} to "cooperative": peers are now sent cancel commands and must reply to them.`
        : `remaining branches change from ${json(x.remaining)} to ${json(y.remaining)}: peers are no longer told to stop once the decision is made; whether their work past the decision harms anyone cannot be proven (not assumed safe).`,
      { field: 'remaining' },
    )
  }
}

/** The quorum threshold for `units` admitted units, or undefined when the completion has none. */
function threshold(completion: Data, units: number): number | undefined {
  const count = num(completion.count)
  if (count !== undefined) return count
  const fraction = obj(completion.fraction)
  const n = num(fraction.numerator)
  const d = num(fraction.denominator)
  if (n === undefined || d === undefined || d <= 0) return undefined
  return Math.ceil((n * units) / d)
}

/** Unit counts at which two thresholds are compared: small counts, and where a count meets a fraction. */
const QUORUM_SCAN = 256

function compareQuorum(p: Pair): void {
  const x = obj(p.a.completion)
  const y = obj(p.b.completion)
  if (x.mode !== 'quorum' || y.mode !== 'quorum') return
  if (json([x.count, x.fraction]) === json([y.count, y.fraction])) return
  const counts = new Set<number>()
  for (let n = 1; n <= QUORUM_SCAN; n++) counts.add(n)
  // A fixed count against a fraction: the fraction passes the count just past count x d / n units.
  for (const [c, fr] of [
    [num(x.count), obj(y.fraction)],
    [num(y.count), obj(x.fraction)],
  ] as const) {
    const n = num(fr.numerator)
    const d = num(fr.denominator)
    if (c !== undefined && n !== undefined && d !== undefined && n > 0) counts.add(Math.floor((c * d) / n) + 1)
  }
  let raised: { units: number; old: number; new: number } | undefined
  let lowered: { units: number; old: number; new: number } | undefined
  for (const units of [...counts].sort((a, b) => a - b)) {
    const a = threshold(x, units)
    const b = threshold(y, units)
    if (a === undefined || b === undefined || a > units) continue
    if (b > a) raised ??= { units, old: a, new: b }
    if (b < a) lowered ??= { units, old: a, new: b }
  }
  const member = y.count !== undefined ? 'count' : 'fraction'
  const spelled = (c: Data) => (c.count !== undefined ? `count ${json(c.count)}` : `fraction ${json(c.fraction)}`)
  if (raised) {
    p.add(
      'nats-interaction-quorum-changed',
      'breaking',
      [invoker(p.id)],
      ['completion', member],
      `the quorum (${spelled(x)} to ${spelled(y)}) is raised: with ${raised.units} admitted units it needs ${raised.new} successes instead of ${raised.old}, so an invocation that reached the old quorum fails.`,
      { witness: raised },
    )
  } else if (lowered) {
    p.add(
      'nats-interaction-quorum-changed',
      'warning',
      [invoker(p.id)],
      ['completion', member],
      `the quorum (${spelled(x)} to ${spelled(y)}) is lowered: with ${lowered.units} admitted units it needs ${lowered.new} successes instead of ${lowered.old}; no invocation that succeeded fails, but a decision now rests on fewer votes, which the invoker may rely on not happening (not assumed safe).`,
      { witness: lowered },
    )
  } else {
    p.add(
      'nats-interaction-quorum-changed',
      'info',
      [],
      ['completion', member],
      `the quorum is written differently (${spelled(x)} to ${spelled(y)}) and gives the same threshold for every unit count.`,
    )
  }
}

function compareCancellation(p: Pair): void {
  const x = obj(p.a.completion)
  const y = obj(p.b.completion)
  for (const field of ['cancelOperation', 'cancelResultOperation']) {
    if (json(x[field]) === json(y[field])) continue
    // Dropped with cooperative cancellation itself: reported once, as the change of `remaining`.
    if (y[field] === undefined && y.remaining !== 'cooperative') continue
    const added = x[field] === undefined
    p.add(
      'nats-interaction-cancellation-changed',
      added ? 'warning' : 'breaking',
      [peers(p.id)],
      ['completion', field],
      added
        ? `${field} ${json(y[field])} was added: peers that do not handle it leave cancels unanswered until the cancel timeout (their survivors are marked indeterminate), which cannot be proven either way (not assumed safe).`
        : `${field} changes from ${json(x[field])} to ${json(y[field])}: peers that ${field === 'cancelOperation' ? 'listen for cancel commands there receive none' : 'reply to cancels there are not heard'}.`,
      { field },
    )
  }
  budget(
    p,
    'nats-interaction-cancellation-changed',
    ['completion', 'cancelTimeoutMs'],
    'the cancel timeout',
    'lower',
    [peers(p.id)],
    'a peer that confirmed a cancel in time may now be marked unknown',
  )
}

function compareAggregation(p: Pair): void {
  const x = obj(p.a.aggregation).adapter
  const y = obj(p.b.aggregation).adapter
  if (json(x) === json(y)) return
  const output = (v: Version, adapter: unknown) => v.model.adapters.find((a) => a.key === adapter)?.outputSchema
  if (x === undefined) {
    p.add('nats-interaction-aggregation-changed', 'info', [], ['aggregation'], `an aggregation ${json(y)} was added: the interaction now has a typed output.`)
    return
  }
  if (y === undefined) {
    p.add(
      'nats-interaction-aggregation-changed',
      'breaking',
      [invoker(p.id)],
      ['aggregation'],
      `its aggregation ${json(x)} was removed: the interaction has no typed output, so invokers and pipeline steps that read it break.`,
    )
    return
  }
  const a = output(p.f.old, x)
  const b = output(p.f.next, y)
  const level = a === undefined || b === undefined ? 'warning' : schemaLevel(p, a, b, 'receives')
  p.add(
    'nats-interaction-aggregation-changed',
    level,
    [invoker(p.id)],
    ['aggregation', 'adapter'],
    `its aggregation adapter changes from ${json(x)} to ${json(y)}: ${
      level === 'breaking'
        ? 'its output schema accepts values the old one refused, which invokers read'
        : level === 'warning'
          ? 'whether its output still reads as the old one cannot be proven (not assumed safe)'
          : 'its output schema accepts no value the old one refused'
    }.`,
  )
}

/**
 * The payload and headers findings on an interaction's request or result channel, relayed for it:
 * on the request channel a receiver is a peer and a sender the invoker's executor; on the result
 * channel the reverse. One finding per interaction and side, at the worst level found.
 */
export function relayPayloads(f: Findings, payloadDrafts: readonly Draft[]): void {
  const channelOf = (op: unknown) => (typeof op === 'string' ? f.next.operations.get(op)?.channel : undefined)
  const receivers = new Set(['subscriber', 'responder', 'requester'])
  // The findings that are not `info`, by channel, in their order: each interaction reads its
  // channels' lists rather than scanning every payload finding (interactions grow with the
  // document, as the findings do).
  const byChannel = new Map<unknown, Draft[]>()
  for (const d of payloadDrafts) {
    if (d.level === 'info') continue
    const channel = d.data?.channel
    const list = byChannel.get(channel)
    if (list) list.push(d)
    else byChannel.set(channel, [d])
  }
  const oldIds = new Set(f.old.model.interactions.map((o) => o.id))
  for (const i of f.next.model.interactions) {
    if (!oldIds.has(i.id)) continue
    for (const [member, request] of [
      ['requestOperation', true],
      ['resultOperation', false],
    ] as const) {
      const channel = channelOf(i.data[member])
      if (channel === undefined) continue
      const hits = byChannel.get(channel) ?? []
      if (hits.length === 0) continue
      let level: DiffLevel = 'info'
      const audiences = new Map<string, DiffAudience>()
      for (const d of hits) {
        if (RANK[d.level] > RANK[level]) level = d.level
        for (const a of d.audiences) {
          const peer = receivers.has(a.kind) === request
          const audience = peer ? peers(i.id) : invoker(i.id)
          audiences.set(audience.kind, audience)
        }
      }
      f.add({
        rule: 'nats-interaction-payload-changed',
        level,
        audiences: [...audiences.values()].sort((a, b) => (a.kind < b.kind ? -1 : 1)),
        old: ptr.profile('interactions', i.id, member),
        new: ptr.profile('interactions', i.id, member),
        message: `Interaction ${q(i.id)}: the ${request ? 'request' : 'result'} messages of ${q(String(i.data[member]))} on channel ${q(channel)} changed (${[...new Set(hits.map((d) => d.rule))].sort().join(', ')}): ${request ? 'peers receive, and the executor sends,' : 'peers send, and the executor receives,'} what the findings on that channel say.`,
        data: { interaction: i.id, channel, rules: [...new Set(hits.map((d) => d.rule))].sort() },
      })
    }
  }
}
