import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { join } from 'node:path'
import { isObject } from '../document.js'
import { natsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one iterative walk of each workflow artifact: O(its size). */

/** Open Workflow 1.0 task kinds, and the members every task may have beside its kind. */
const TASK_KINDS = new Set(['call', 'do', 'emit', 'for', 'fork', 'listen', 'raise', 'run', 'set', 'switch', 'try', 'wait'])

const TASK_COMMON = new Set(['if', 'input', 'output', 'export', 'timeout', 'then', 'metadata'])

/** Members that belong to a kind beside its key: a `call` its `with`, a `for` its `while` and `do`, a `try` its `catch`, a `listen` its `foreach`. */
const KIND_PARTS: Readonly<Record<string, readonly string[]>> = { call: ['with'], for: ['do', 'while'], try: ['catch'], listen: ['foreach'] }

/**
 * Why a workflow document is not an Open Workflow 1.0.4 document in substance, as [pointer, reason]
 * pairs: `document` with `dsl: 1.0.4`, `namespace`, `name` and `version`, and a non-empty `do` list
 * of named tasks, each of exactly one Open Workflow kind ("quorum is this profile's interaction
 * primitive, not an invented native workflow feature": a task of another kind is refused). Nested
 * task lists (`do`, a `for`'s `do`, `fork.branches`, `try.try`) are read the same way. Iterative:
 * O(document).
 */
function workflowProblems(doc: unknown): Array<[string, string]> {
  const problems: Array<[string, string]> = []
  const d = isObject(doc) && isObject(doc.document) ? doc.document : undefined
  if (!d) return [['', 'An Open Workflow document has a `document` object.']]
  if (d.dsl !== '1.0.4') problems.push(['/document/dsl', `document.dsl is exactly '1.0.4', not ${JSON.stringify(d.dsl ?? null)}.`])
  for (const member of ['namespace', 'name', 'version'])
    if (typeof d[member] !== 'string' || d[member] === '') problems.push([`/document/${member}`, `document.${member} is a non-empty string.`])
  const lists: Array<[unknown, string]> = [[(doc as Record<string, unknown>).do, '/do']]
  while (lists.length > 0) {
    const [list, at] = lists.pop()!
    if (!Array.isArray(list) || list.length === 0) {
      problems.push([at, 'A task list is a non-empty array of named tasks.'])
      continue
    }
    list.forEach((entry, i) => {
      const names = isObject(entry) ? Object.keys(entry) : []
      if (names.length !== 1 || !isObject((entry as Record<string, unknown>)[names[0]!]))
        return problems.push([`${at}/${i}`, 'A task list entry is one named task: { <name>: { <kind>: ... } }.'])
      const name = names[0]!
      const task = (entry as Record<string, Record<string, unknown>>)[name]!
      const where = `${at}/${i}/${escapeToken(name)}`
      const keys = Object.keys(task)
      const kinds = keys.filter((k) => TASK_KINDS.has(k))
      const parts = new Set(kinds.flatMap((k) => (Object.hasOwn(KIND_PARTS, k) ? KIND_PARTS[k]! : [])))
      const own = kinds.filter((k) => !parts.has(k))
      const unknown = keys.filter((k) => !TASK_KINDS.has(k) && !TASK_COMMON.has(k) && !parts.has(k))
      for (const k of unknown)
        problems.push([
          `${where}/${escapeToken(k)}`,
          `${JSON.stringify(k)} is not an Open Workflow 1.0 task kind or member (quorum and other coordination are this profile's interaction primitives: call an interaction).`,
        ])
      if (own.length !== 1) problems.push([where, `A task has exactly one kind (${[...TASK_KINDS].join(', ')}); ${JSON.stringify(name)} has ${own.length}.`])
      if (own[0] === 'do') lists.push([task.do, `${where}/do`])
      if (own[0] === 'for') lists.push([task.do, `${where}/do`])
      if (own[0] === 'try') lists.push([task.try, `${where}/try`])
      if (own[0] === 'fork' && isObject(task.fork)) lists.push([task.fork.branches, `${where}/fork/branches`])
    })
  }
  return problems
}

export const workflowRule = natsRule({
  code: 'NATS_WORKFLOW',
  description:
    'A workflow artifact that is not a locked Open Workflow 1.0.4 document in substance: `document` (dsl 1.0.4, namespace, name, version) and `do` tasks, each of one Open Workflow kind (no invented primitive such as a native quorum).',
  check(ctx, report) {
    for (const [key, workflow] of Object.entries(ctx.section('workflows'))) {
      if (!isObject(workflow) || !isObject(workflow.artifact) || typeof workflow.artifact.path !== 'string' || !ctx.input.bundle) continue
      const file = ctx.input.files.get(join(ctx.input.bundle.root, ...workflow.artifact.path.split('/')))
      if (!file) continue
      for (const [pointer, reason] of workflowProblems(file.source.value)) report.in(file, pointer, `Workflow ${JSON.stringify(key)}: ${reason}`)
    }
  },
})
