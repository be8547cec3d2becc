/**
 * The Benzene differ (`contracts diff` on `*.spec.json`): request and event topics paired by
 * `(topic, version)`, how clients reach the service, payload schemas by direction, the members that
 * change no message, and which contract hashes change. Audiences: `client` and `service`, named by
 * topic where one is known.
 *
 * Cost: linear in the two documents' sizes, plus the schema engine's work on the payloads and the
 * catalogue and the topic-scoped hashes: both bounded by the sum of the topics' §5.3 closures, the
 * bound the model's own hashes have (build-model.ts).
 */
import { enclosingPointer } from '../../../core/diff/enclosing.js'
import type { DiffFinding, DiffSide, FormatDiffer } from '../../../core/diff/types.js'
import type { BenzeneModel } from '../model.js'
import { documentFindings } from './document.js'
import { entryFindings, pairEvents, pairRequests } from './entries.js'
import { finalize } from './findings.js'
import { hashFinding } from './hashes.js'
import { payloadFindings } from './payloads.js'
import { endpointFindings, httpMappingFindings, transportFindings } from './reachability.js'
import { BENZENE_DIFF_RULES } from './rules.js'
import { readVersion } from './side.js'

export { BENZENE_DIFF_RULES } from './rules.js'
export { hashChanges, type HashChange } from './hashes.js'

export function diffBenzene(oldSide: DiffSide<BenzeneModel>, nextSide: DiffSide<BenzeneModel>): DiffFinding[] {
  const old = readVersion(oldSide)
  const next = readVersion(nextSide)
  const requests = pairRequests(old, next)
  const events = pairEvents(old, next)
  const findings: DiffFinding[] = [
    ...entryFindings(old, next, requests, events),
    ...endpointFindings(old, next),
    ...transportFindings(old, next),
    ...httpMappingFindings(old, next, requests.pairs),
    ...payloadFindings(old, next, requests, events),
    ...documentFindings(old, next, requests.pairs, events.pairs),
  ]
  // The hash finding says which hashes change, or (info) that none does; two identical texts have no findings at all.
  const sameText = old.model.source !== undefined && next.model.source !== undefined && old.model.source.text === next.model.source.text
  if (findings.length > 0 || !sameText) findings.push(hashFinding(old, next))
  // Something one version lacks is located there at the node that encloses where it is in the other.
  for (const finding of findings) {
    if (finding.new === undefined && finding.old !== undefined) finding.new = next.at(enclosingPointer(next.doc, finding.old.pointer))
    else if (finding.old === undefined && finding.new !== undefined) finding.old = old.at(enclosingPointer(old.doc, finding.new.pointer))
  }
  old.settle()
  next.settle()
  return finalize(findings)
}

export const benzeneDiffer: FormatDiffer<BenzeneModel> = {
  format: 'benzene',
  rules: BENZENE_DIFF_RULES,
  diff: diffBenzene,
}
