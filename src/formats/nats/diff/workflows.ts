/**
 * Workflows (profile v0.2: a locked Open Workflow 1.0.4 document through `workflows.<id>`, with its
 * adapter and input and output schemas). Paired by key. The input schema is what the invoker sends
 * and the output what it receives: each is compared with the schema engine and leveled by
 * direction. The locked document itself is read through the side (the bundle root is the folder of
 * the nearest `bundle.lock.json`) and its top-level `do` tasks compared by name: a task removed (its
 * calls no longer happen: breaking for the invoker and for who the call reached), a task whose
 * `call` or `then` (its transition) changed or that moved (breaking: the flow runs differently), a
 * task added (a warning: more work), or the document changed elsewhere (a warning naming it). A
 * document that cannot be read or parsed is a warning: never assumed unchanged.
 * Cost: the two workflow documents' sizes, read once per workflow whose artifact changed.
 */
import { dirname, join } from 'node:path'
import { diffSchemas } from '../../../core/diff/schema-diff.js'
import { levelFor, type SchemaEffect } from '../../../core/diff/schema-diff-types.js'
import type { DiffAudience, DiffLevel } from '../../../core/diff/types.js'
import { parseYamlSource } from '../../../core/yaml-source.js'
import { isObject } from '../document.js'
import { q, type Findings, type Version } from './context.js'
import { schemaSide } from './payloads.js'
import { ptr } from './source.js'

const RANK: Record<DiffLevel, number> = { info: 0, warning: 1, breaking: 2 }
const json = (value: unknown) => JSON.stringify(value)
/** A task's `then` as the sentence names it (absent: the next task in order). */
const next = (then: unknown) => (then === undefined ? 'the next task' : JSON.stringify(then))
/** Folders climbed to find the bundle lock (as impact.ts does). */
const MAX_CLIMB = 32

/** A file of the version through its side; undefined when the side cannot read it (never a throw). */
async function readSafe(v: Version, file: string): Promise<string | undefined> {
  try {
    return await v.side.read(file)
  } catch {
    return undefined
  }
}

async function bundleRoot(v: Version): Promise<string | undefined> {
  let dir = dirname(v.side.file)
  for (let i = 0; i < MAX_CLIMB; i++) {
    if ((await readSafe(v, join(dir, 'bundle.lock.json'))) !== undefined) return dir
    const up = dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
  return undefined
}

interface Task {
  name: string
  body: Record<string, unknown>
}

/** The locked workflow document's top-level tasks, or undefined when it cannot be read as one. */
async function tasksOf(v: Version, root: string | undefined, path: unknown): Promise<Task[] | undefined> {
  if (root === undefined || typeof path !== 'string' || path.startsWith('/') || path.split('/').includes('..')) return undefined
  const file = join(root, ...path.split('/'))
  const text = await readSafe(v, file)
  if (text === undefined) return undefined
  let doc: unknown
  try {
    doc = parseYamlSource(file, text).source.value
  } catch {
    return undefined
  }
  if (!isObject(doc) || !Array.isArray(doc.do)) return undefined
  const tasks: Task[] = []
  for (const item of doc.do) {
    if (!isObject(item)) return undefined
    for (const [name, body] of Object.entries(item)) tasks.push({ name, body: isObject(body) ? body : {} })
  }
  return tasks
}

function schemaLevel(f: Findings, oldRef: unknown, newRef: unknown, role: 'sends' | 'receives'): DiffLevel {
  if (typeof oldRef !== 'string' || typeof newRef !== 'string' || !oldRef.startsWith('#') || !newRef.startsWith('#'))
    return json(oldRef) === json(newRef) ? 'info' : 'warning'
  let effects: SchemaEffect[]
  try {
    effects = diffSchemas(schemaSide(f.old, oldRef.slice(1)), schemaSide(f.next, newRef.slice(1))).map((c) => c.effect)
  } catch {
    effects = ['unknown']
  }
  let level: DiffLevel = 'info'
  for (const e of effects) if (RANK[levelFor(e, role)] > RANK[level]) level = levelFor(e, role)
  return level
}

export async function diffWorkflows(f: Findings): Promise<void> {
  const before = new Map(f.old.model.workflows.map((w) => [w.key, w.data]))
  const after = new Map(f.next.model.workflows.map((w) => [w.key, w.data]))
  if (before.size === 0 && after.size === 0) return
  let roots: [string | undefined, string | undefined] | undefined
  for (const [key, a] of before) {
    const b = after.get(key)
    const invoker: DiffAudience = { kind: 'invoker', name: key }
    const at = (...tokens: string[]) => ptr.profile('workflows', key, ...tokens)
    if (!b) {
      f.add({
        rule: 'nats-workflow-removed',
        level: 'breaking',
        audiences: [invoker],
        old: at(),
        new: f.next.model.workflows.length === 0 ? ptr.profile() : ptr.profile('workflows'),
        message: `Workflow ${q(key)} was removed: code that starts it loses it.`,
        data: { workflow: key },
      })
      continue
    }
    for (const [member, role] of [
      ['inputSchema', 'sends'],
      ['outputSchema', 'receives'],
    ] as const) {
      const level = schemaLevel(f, a[member], b[member], role)
      if (level === 'info') continue
      f.add({
        rule: 'nats-workflow-schema-changed',
        level,
        audiences: [invoker],
        old: at(member),
        new: at(member),
        message: `Workflow ${q(key)}: its ${member === 'inputSchema' ? 'input' : 'output'} schema (${q(String(b[member]))}) ${
          level === 'breaking'
            ? member === 'inputSchema'
              ? 'refuses inputs the old one accepted, which invokers pass'
              : 'accepts outputs the old one refused, which invokers read'
            : 'changed in a way whose effect cannot be proven either way (not assumed safe)'
        }.`,
        data: { workflow: key, member },
      })
    }
    if (json(a.adapter) !== json(b.adapter)) {
      f.add({
        rule: 'nats-workflow-adapter-changed',
        level: 'warning',
        audiences: [{ kind: 'deployment', name: key }],
        old: at('adapter'),
        new: at('adapter'),
        message: `Workflow ${q(key)} runs through adapter ${q(String(b.adapter))} instead of ${q(String(a.adapter))}: another provider, whose workflow conformance is not compared (not assumed safe).`,
        data: { workflow: key },
      })
    }
    if (json(a.artifact) === json(b.artifact)) continue
    roots ??= [await bundleRoot(f.old), await bundleRoot(f.next)]
    const pathOf = (d: Record<string, unknown>) => (isObject(d.artifact) ? d.artifact.path : undefined)
    const [x, y] = [await tasksOf(f.old, roots[0], pathOf(a)), await tasksOf(f.next, roots[1], pathOf(b))]
    compareTasks(f, key, x, y)
  }
  for (const key of after.keys()) {
    if (before.has(key)) continue
    f.add({
      rule: 'nats-workflow-added',
      level: 'info',
      audiences: [],
      new: ptr.profile('workflows', key),
      message: `Workflow ${q(key)} was added.`,
      data: { workflow: key },
    })
  }
}

function compareTasks(f: Findings, key: string, a: Task[] | undefined, b: Task[] | undefined): void {
  const at = ptr.profile('workflows', key, 'artifact')
  const invoker: DiffAudience = { kind: 'invoker', name: key }
  const add = (level: DiffLevel, audiences: DiffAudience[], message: string, data: Record<string, unknown>) =>
    f.add({
      rule: 'nats-workflow-steps-changed',
      level,
      audiences,
      old: at,
      new: at,
      message: `Workflow ${q(key)}: ${message}`,
      data: { workflow: key, ...data },
    })
  if (a === undefined || b === undefined) {
    add(
      'warning',
      [invoker],
      'its locked document changed and one version could not be read as an Open Workflow document, so its tasks were not compared (not assumed safe).',
      {},
    )
    return
  }
  const names = (list: Task[]) => list.map((t) => t.name)
  const before = new Map(a.map((t) => [t.name, t]))
  const after = new Map(b.map((t) => [t.name, t]))
  const called = (t: Task): DiffAudience[] => (typeof t.body.call === 'string' ? [{ kind: 'peer', name: `${t.body.call} (called by ${t.name})` }] : [])
  let reported = false
  for (const t of a) {
    if (after.has(t.name)) continue
    reported = true
    add('breaking', [invoker, ...called(t)], `task ${q(t.name)} was removed from its locked document: its call no longer happens.`, { task: t.name })
  }
  for (const t of b) {
    const old = before.get(t.name)
    if (!old) {
      reported = true
      add(
        'warning',
        [invoker],
        `task ${q(t.name)} was added to its locked document: the workflow does more work; whether its invoker relies on it doing no more cannot be proven (not assumed safe).`,
        { task: t.name },
      )
      continue
    }
    for (const member of ['call', 'then']) {
      if (json(old.body[member]) === json(t.body[member])) continue
      reported = true
      add(
        'breaking',
        [invoker, ...called(old)],
        `task ${q(t.name)} ${member === 'call' ? `calls ${json(t.body.call)} instead of ${json(old.body.call)}` : `transitions to ${next(t.body.then)} instead of ${next(old.body.then)}`}.`,
        { task: t.name, member },
      )
    }
  }
  const kept = (list: Task[], other: Map<string, Task>) => names(list).filter((n) => other.has(n))
  if (json(kept(a, after)) !== json(kept(b, before))) {
    reported = true
    add('breaking', [invoker], `its tasks run in another order (${kept(b, before).map(q).join(', ')}): the sequence's transitions changed.`, {
      order: kept(b, before),
    })
  }
  if (!reported)
    add(
      'warning',
      [invoker],
      "its locked document changed outside the tasks' names, calls and transitions (inputs, arguments, timeouts): not classified (not assumed safe).",
      {},
    )
}
