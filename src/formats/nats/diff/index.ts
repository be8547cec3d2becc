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
import { Findings, version } from './context.js'
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

async function diffNats(oldSide: DiffSide<NatsModel>, nextSide: DiffSide<NatsModel>): Promise<DiffFinding[]> {
  const [oldDoc, nextDoc] = await Promise.all([positioned(oldSide), positioned(nextSide)])
  const old = version(oldSide, oldDoc)
  const next = version(nextSide, nextDoc)
  const findings = new Findings(old, next)
  diffChannels(findings)
  diffOperations(findings)
  const payloadsFrom = findings.drafts.length
  diffPayloads(findings)
  diffHeaders(findings)
  const payloadDrafts = findings.drafts.slice(payloadsFrom)
  diffNative(findings)
  diffSections(findings)
  diffInteractions(findings)
  relayPayloads(findings, payloadDrafts)
  diffPipelines(findings)
  await diffWorkflows(findings)
  if (findings.drafts.some((d) => d.level === 'breaking' && (d.scope !== undefined || d.rule === 'nats-contract-id-changed'))) {
    const [oldView, nextView] = await Promise.all([bundleView(oldSide, oldDoc.value), bundleView(nextSide, nextDoc.value)])
    attachImpact(findings.drafts, old, next, { old: oldView, next: nextView })
  }
  return findings.located(findings.drafts)
}

export const natsDiffer: FormatDiffer<NatsModel> = {
  format: 'nats',
  rules: [...NATS_DIFF_RULES, ...NATS_SCHEMA_RULES],
  diff: diffNats,
}
