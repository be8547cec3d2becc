/**
 * A component's witness as a whole payload. Each component schema is compared on its own (payloads.ts),
 * so the engine's witness for a change inside one is a value of that component: for a `Money` two
 * `$ref`s deep in a request it is `{}`, not a request anyone can send. An outside pass against the
 * generated modules over HTTP sent such witnesses and found them refused for reasons of their own
 * (the payload's required members missing), not for the change.
 *
 * So each component finding's witness is searched again in a payload that reaches the component in
 * the version that accepts it, preferring a payload of a party the finding names: a payload that is a
 * bare `$ref` to the component takes the component's witness as it is (the payload accepts exactly
 * what the component does); any other is compared again by the engine without the settled
 * components (the walk reaches the component through the payload, and its witness is placed in the
 * payload's minimal instance and checked against both payloads, as every payload change's is), and
 * the change with the same rule at the same two pointers gives its witness. `data.witnessIn` names
 * the payload (`{ topic, place }`). Where no payload takes one (the component reached by none, the
 * walks' bound reached, or no witness the whole payload confirms), the component's own value is kept
 * as `data.componentValue`, never as `data.witness`.
 *
 * Cost: at most one walk per payload (its changes serve every component it reaches), at most
 * MAX_WALKS walks, all of them counted against the document's pair bound together.
 */
import { diffSchemas } from '../../../core/diff/schema-diff.js'
import type { SchemaChange, SchemaDiffOptions } from '../../../core/diff/schema-diff-types.js'
import type { DiffAudience, DiffFinding } from '../../../core/diff/types.js'
import { isObject, refTarget } from '../../../runtime/benzene/document.js'
import { readingOf, type Reading } from './readings.js'
import type { BenzeneVersion } from './side.js'

/** Payload walks made to place witnesses, at most (each serves every component its payload reaches). */
export const MAX_WALKS = 64

/** Payloads compared again for one witness, at most. */
const MAX_TRIES = 4
/** Witnesses one finding carries, at most (a component every topic names would otherwise carry one per topic). */
export const MAX_PLACED = 8

/** A paired entry's payload, with the components it reaches in each version. */
export interface ReachingPayload {
  place: 'request' | 'response' | 'message'
  label: string
  oldPointer: string
  newPointer: string
  oldSchema: unknown
  newSchema: unknown
  reached: { old: ReadonlySet<string>; new: ReadonlySet<string> }
  /** Who sends and who receives this payload. */
  parties: ReadonlyArray<{ audience: DiffAudience; direction: 'sends' | 'receives' }>
}

/** A component's change and the finding made of it. */
export interface ComponentFinding {
  name: string
  change: SchemaChange
  /** The reading the change was found in, when only one found it (readings.ts). */
  reading?: Reading
  finding: DiffFinding
}

type Witness = NonNullable<SchemaChange['witness']>

const changeKey = (change: SchemaChange, acceptedBy: string) =>
  `${change.rule}\u0000${change.old?.pointer ?? ''}\u0000${change.new?.pointer ?? ''}\u0000${acceptedBy}`

const sameAudience = (a: DiffAudience, b: DiffAudience) => a.kind === b.kind && a.name === b.name

/** Whether a witness accepted by `acceptedBy` shows the break of a party: a sender meets a refusal, a receiver a value it refused. */
const proves = (acceptedBy: 'old' | 'new', direction: 'sends' | 'receives') => (direction === 'sends' ? acceptedBy === 'old' : acceptedBy === 'new')

/** The component a schema is nothing but a reference to (OpenAPI 3.0 ignores a `$ref`'s siblings, but a sibling is still a difference to compare). */
export function bareRef(schema: unknown): string | undefined {
  return isObject(schema) && Object.keys(schema).length === 1 ? refTarget(schema.$ref) : undefined
}

/** A change's witnesses, one per direction found. */
export function witnessesOf(change: SchemaChange): readonly Witness[] {
  return change.witnesses ?? (change.witness ? [change.witness] : [])
}

/**
 * Replaces each component finding's witness by one placed in a payload (see the module comment),
 * for each audience the finding names where one can be: a `both` change's two witnesses each in a
 * payload of a party it proves the break of. `directed`: the versions are compared in each
 * direction's reading.
 */
export function placeComponentWitnesses(
  old: BenzeneVersion,
  next: BenzeneVersion,
  payloads: readonly ReachingPayload[],
  items: readonly ComponentFinding[],
  dialect: SchemaDiffOptions,
  directed: boolean,
  bound: number,
): void {
  const tally = { pairs: 0 }
  let walks = 0
  // Each payload's witnesses by change and accepting side, walked at most once (undefined: not walked, past the bounds).
  const walked = new Map<ReachingPayload, Map<string, Witness> | undefined>()
  const changesOf = (payload: ReachingPayload): Map<string, Witness> | undefined => {
    if (walked.has(payload)) return walked.get(payload)
    let found: Map<string, Witness> | undefined
    if (walks < MAX_WALKS && tally.pairs < bound) {
      walks++
      const reading = directed ? readingOf(payload.place) : undefined
      found = new Map()
      for (const change of diffSchemas(old.schema(payload.oldPointer, reading), next.schema(payload.newPointer, reading), { ...dialect, tally }))
        for (const witness of witnessesOf(change))
          if (!found.has(changeKey(change, witness.acceptedBy))) found.set(changeKey(change, witness.acceptedBy), witness)
    }
    walked.set(payload, found)
    return found
  }
  for (const item of items) {
    const own = witnessesOf(item.change)
    if (own.length === 0) continue
    const data = item.finding.data ?? (item.finding.data = {})
    delete data.witness
    delete data.witnesses
    const named = item.finding.audiences
    const covered: DiffAudience[] = []
    const placed: Array<{ witness: Witness; payload: ReachingPayload }> = []
    for (const witness of own) {
      // The named audiences this witness could show the break of, in a payload: those not shown yet.
      const shows = (p: ReachingPayload) =>
        p.parties.filter(
          (party) =>
            proves(witness.acceptedBy, party.direction) &&
            named.some((a) => sameAudience(a, party.audience)) &&
            !covered.some((a) => sameAudience(a, party.audience)),
        )
      const candidates = payloads.filter(
        (p) => p.reached[witness.acceptedBy].has(item.name) && (item.reading === undefined || !directed || readingOf(p.place) === item.reading),
      )
      // Payloads whose parties the witness shows first; then, of those alike, one that is the component itself (no walk).
      const itself = (p: ReachingPayload) => bareRef(p.oldSchema) === item.name && bareRef(p.newSchema) === item.name
      const rank = (p: ReachingPayload) => (shows(p).length > 0 ? 0 : 2) + (itself(p) ? 0 : 1)
      candidates.sort((a, b) => rank(a) - rank(b))
      let tries = 0
      // The witness placed once for each payload that shows a named audience not shown yet (or once, where it shows none).
      for (const payload of candidates) {
        const showing = shows(payload)
        if (placed.length >= MAX_PLACED) break
        if (showing.length === 0 && placed.some((p) => p.witness.acceptedBy === witness.acceptedBy)) continue
        let found: Witness | undefined
        if (itself(payload)) found = witness
        else {
          // A few payloads per witness: one that does not confirm it seldom has a sibling that does.
          if (++tries > MAX_TRIES) break
          found = changesOf(payload)?.get(changeKey(item.change, witness.acceptedBy))
        }
        if (!found) continue
        for (const party of showing) covered.push(party.audience)
        placed.push({ witness: found, payload })
        if (showing.length === 0) break
      }
    }
    if (placed.length === 0) {
      data.componentValue = own[0]
      continue
    }
    const where = (p: ReachingPayload) => ({ topic: p.label, place: p.place })
    data.witness = placed[0]!.witness
    data.witnessIn = where(placed[0]!.payload)
    if (placed.length > 1) data.witnesses = placed.map(({ witness, payload }) => ({ ...witness, in: where(payload) }))
  }
}
