/**
 * The NATS differ (`contracts diff`): every change between two versions of an application
 * document, classified for the parties it breaks: publishers and subscribers of each channel per
 * operation, requesters and responders, the JetStream deployment, and the invokers and peers of
 * interactions, pipelines and workflows; in a bundle, the linked applications each breaking change
 * reaches. One file per concern:
 * channels.ts (channels and exact subject languages), operations.ts, payloads.ts and headers.ts (by
 * direction, through the schema engine), native.ts (streams and consumers), interactions.ts,
 * pipelines.ts and workflows.ts (the profile's composition, by member), sections.ts (the profile's
 * other sections), impact.ts (the bundle), source.ts (locations), rules.ts (the catalogue).
 *
 * Cost: linear in the two documents (each keyed collection paired by id through maps), plus the
 * subject inclusion per paired channel (O(positions x token-type containment), the token domains
 * being finite and bounded by 128 bytes), the schema engine per message (payload and headers),
 * each interaction's members, each changed workflow's two locked documents, and the bundle's
 * documents read once per side. The rename pairing is bounded (channels.ts).
 */
import type { DiffFinding, DiffSide, FormatDiffer } from '../../../core/diff/types.js'
import type { NatsModel } from '../model.js'
import { diffChannels } from './channels.js'
import { Findings, version, type Draft } from './context.js'
import { diffHeaders } from './headers.js'
import { attachImpact, bundleView } from './impact.js'
import { diffInteractions, relayPayloads } from './interactions.js'
import { diffNative } from './native.js'
import { diffOperations } from './operations.js'
import { diffPayloads } from './payloads.js'
import { diffPipelines } from './pipelines.js'
import { NATS_DIFF_RULES, NATS_SCHEMA_RULES } from './rules.js'
import { diffSections } from './sections.js'
import { positioned } from './source.js'
import { diffWorkflows } from './workflows.js'

/**
 * The channels whose messages this thread compares when a worker shares the comparison (the first
 * this fraction of them, by their place in the old model): the rest go to the worker, and this
 * thread makes every other part (channels, operations, the deployment, the profile, locations).
 */
const MAIN_SHARE = 0.4

/** What the worker's part holds: the drafts of the payloads and headers of its channels, in order. */
interface NatsPart {
  payloads: Draft[]
  headers: Draft[]
}

async function compared(oldSide: DiffSide<NatsModel>, nextSide: DiffSide<NatsModel>) {
  const [oldDoc, nextDoc] = await Promise.all([positioned(oldSide), positioned(nextSide)])
  return { oldDoc, nextDoc, findings: new Findings(version(oldSide, oldDoc), version(nextSide, nextDoc)) }
}

const cut = (model: NatsModel) => Math.ceil(model.channels.length * MAIN_SHARE)

/** The worker's part: the payloads and headers of the channels past `cut` (renames found as `diffChannels` finds them). */
async function partNats(oldSide: DiffSide<NatsModel>, nextSide: DiffSide<NatsModel>): Promise<NatsPart> {
  const { findings } = await compared(oldSide, nextSide)
  diffChannels(findings)
  const from = cut(oldSide.model)
  const start = findings.drafts.length
  diffPayloads(findings, from, Infinity, false)
  const middle = findings.drafts.length
  diffHeaders(findings, from)
  return { payloads: findings.drafts.slice(start, middle), headers: findings.drafts.slice(middle) }
}

async function diffNats(oldSide: DiffSide<NatsModel>, nextSide: DiffSide<NatsModel>, part?: Promise<unknown>): Promise<DiffFinding[]> {
  const { oldDoc, nextDoc, findings } = await compared(oldSide, nextSide)
  const { old, next } = findings
  diffChannels(findings)
  diffOperations(findings)
  const payloadsFrom = findings.drafts.length
  // Shared: this thread's channels, then the worker's (or, when it has none to give, the same made
  // here): the drafts come in the order one thread makes them.
  const to = part === undefined ? Infinity : cut(old.model)
  diffPayloads(findings, 0, to, false)
  const given = part === undefined ? undefined : ((await part) as NatsPart | undefined)
  if (given) for (const d of given.payloads) findings.add(d)
  else if (part !== undefined) diffPayloads(findings, to, Infinity, false)
  diffPayloads(findings, 0, 0, true)
  diffHeaders(findings, 0, to)
  if (given) for (const d of given.headers) findings.add(d)
  else if (part !== undefined) diffHeaders(findings, to)
  const payloadDrafts = findings.drafts.slice(payloadsFrom)
  diffNative(findings)
  diffSections(findings)
  diffInteractions(findings)
  relayPayloads(findings, payloadDrafts)
  diffPipelines(findings)
  await diffWorkflows(findings)
  if (findings.drafts.some((d) => d.level === 'breaking' && d.scope !== undefined)) {
    const [oldView, nextView] = await Promise.all([bundleView(oldSide, oldDoc.value), bundleView(nextSide, nextDoc.value)])
    attachImpact(findings.drafts, old, next, { old: oldView, next: nextView })
  }
  return findings.located(findings.drafts)
}

export const natsDiffer: FormatDiffer<NatsModel> = {
  format: 'nats',
  rules: [...NATS_DIFF_RULES, ...NATS_SCHEMA_RULES],
  diff: (old, next) => diffNats(old, next),
  shared: {
    // The validator plan is the generator's (the differ never reads it) and the parse is not
    // enumerable: the other thread reads the document's text again (diff/source.ts).
    portable: ({ validatorPlan: _plan, ...model }) => model,
    part: partNats,
    diff: diffNats,
  },
}
