/**
 * Runs the subject property: generated pairs of application documents written to a temporary
 * folder, compiled with the real compiler (both versions must compile without errors; a pair that
 * does not is skipped and counted), diffed by a NATS differ, and judged by the oracle's witnesses.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ContractCompiler } from '../../src/core/compile.js'
import type { DiffFinding, DiffSide, FormatDiffer } from '../../src/core/diff/types.js'
import { formats, natsFormat } from '../../src/formats/index.js'
import type { NatsModel } from '../../src/formats/nats/model.js'
import { createSubject } from '../../src/runtime/nats/subjects.js'
import type { Random } from './diff-oracle-random.js'
import {
  CHANNEL_ID,
  applicationDocument,
  channelSubjects,
  documentText,
  flags,
  randomChannel,
  randomChannelEdit,
  subjectViolations,
  subjectWitnesses,
  type ChannelDocument,
} from './diff-oracle-subjects.js'

export interface SubjectRunStats {
  pairs: number
  /** Pairs where a version did not compile without errors (skipped), with the first few reasons. */
  skipped: number
  skipReasons: string[]
  judged: number
  publisherWitnessed: number
  subscriberWitnessed: number
  /** Judged pairs the enumeration shows no difference for (a rename, an equal language, a description). */
  unwitnessed: number
  /** Pairs with a witness that the differ flagged for every party a witness breaks. */
  caught: number
  /** Of those, caught with `breaking` findings alone (no warning needed). */
  caughtBreaking: number
  /** Pairs where the differ used a `warning` for publishers or subscribers. */
  warningUsed: number
  /** Unwitnessed pairs the differ still flagged (not a violation: the oracle judges breaks it can show). */
  flaggedWithoutWitness: number
  byLabel: Map<string, number>
  /** Edit kinds of the pairs with a violation, and how many. */
  violatedLabels: Map<string, number>
  violations: string[]
  /**
   * Where the oracle's enumeration and the compiled channel's own parser (the generated subject
   * object, which is what a subscriber parses with) disagree: a subject enumerated for a version it
   * does not parse, or a witness the other version does parse. Not a differ's fault: the oracle's
   * premise, held to zero by the tests.
   */
  disagreements: string[]
}

export interface SubjectRunOptions {
  random: Random
  pairs: number
  /** A folder of its own for the documents. */
  folder: string
  differ: FormatDiffer<NatsModel>
  compiler?: ContractCompiler
}

/** The model of a document, when it compiles without errors; the errors otherwise. */
export async function modelOf(compiler: ContractCompiler, file: string): Promise<{ model?: NatsModel; errors: string[] }> {
  const result = await compiler.model(file, natsFormat)
  const errors = result.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.message}`)
  return { model: errors.length === 0 ? result.model : undefined, errors }
}

/** One version as a differ receives it; `read` reads that version's other files from disk. */
export function side(file: string, model: NatsModel): DiffSide<NatsModel> {
  return {
    file,
    model,
    read: async (other) => {
      try {
        return readFileSync(other, 'utf8')
      } catch {
        return undefined
      }
    },
  }
}

export async function runSubjectProperty({
  random,
  pairs,
  folder,
  differ,
  compiler = new ContractCompiler({ formats }),
}: SubjectRunOptions): Promise<SubjectRunStats> {
  const stats: SubjectRunStats = {
    pairs: 0,
    skipped: 0,
    skipReasons: [],
    judged: 0,
    publisherWitnessed: 0,
    subscriberWitnessed: 0,
    unwitnessed: 0,
    caught: 0,
    caughtBreaking: 0,
    warningUsed: 0,
    flaggedWithoutWitness: 0,
    byLabel: new Map(),
    violatedLabels: new Map(),
    violations: [],
    disagreements: [],
  }
  for (let i = 0; i < pairs; i++) {
    const pair = randomChannelEdit(random, randomChannel(random))
    stats.pairs++
    stats.byLabel.set(pair.edit, (stats.byLabel.get(pair.edit) ?? 0) + 1)
    const documents = { old: applicationDocument(pair.old), new: applicationDocument(pair.new) }
    const files = { old: join(folder, String(i), 'old', 'asyncapi.yaml'), new: join(folder, String(i), 'new', 'asyncapi.yaml') }
    for (const version of ['old', 'new'] as const) {
      mkdirSync(join(files[version], '..'), { recursive: true })
      writeFileSync(files[version], documentText(documents[version]))
    }
    const [before, after] = [await modelOf(compiler, files.old), await modelOf(compiler, files.new)]
    if (!before.model || !after.model) {
      stats.skipped++
      if (stats.skipReasons.length < 5) stats.skipReasons.push(`${pair.edit}: ${[...before.errors, ...after.errors].join('; ')}`)
      continue
    }
    stats.judged++
    let findings: DiffFinding[]
    try {
      findings = await differ.diff(side(files.old, before.model), side(files.new, after.model))
    } catch (error) {
      // A differ never throws on what a document holds: a throw is a violation, reported with its pair.
      stats.violations.push(`the differ threw ${String(error)} on edit ${pair.edit}: ${documentText(documents.old)} ->\n${documentText(documents.new)}`)
      continue
    }
    const oldSubjects = channelSubjects(documents.old, CHANNEL_ID)
    const newSubjects = channelSubjects(documents.new, CHANNEL_ID)
    const witnesses = subjectWitnesses(oldSubjects, newSubjects)
    const violations = subjectViolations(pair.edit, documents as { old: ChannelDocument; new: ChannelDocument }, findings, witnesses)
    stats.violations.push(...violations)
    if (violations.length > 0) stats.violatedLabels.set(pair.edit, (stats.violatedLabels.get(pair.edit) ?? 0) + 1)
    stats.disagreements.push(...disagreements(pair.edit, { old: before.model, new: after.model }, { old: oldSubjects, new: newSubjects }, witnesses))
    const publishers = flags(findings, 'publisher')
    const subscribers = flags(findings, 'subscriber')
    if ([...publishers, ...subscribers].some((f) => f.level === 'warning')) stats.warningUsed++
    const brokePublishers = witnesses.removed.length > 0
    const brokeSubscribers = witnesses.added.length > 0
    if (brokePublishers) stats.publisherWitnessed++
    if (brokeSubscribers) stats.subscriberWitnessed++
    if (!brokePublishers && !brokeSubscribers) {
      stats.unwitnessed++
      if (publishers.length + subscribers.length > 0) stats.flaggedWithoutWitness++
      continue
    }
    if (violations.length === 0) stats.caught++
    const breaking = (list: DiffFinding[]) => list.some((f) => f.level === 'breaking')
    if ((!brokePublishers || breaking(publishers)) && (!brokeSubscribers || breaking(subscribers))) stats.caughtBreaking++
  }
  return stats
}

/** The compiled channel's own parser, from the model (its address tokens and its parameters' token types). */
function parserOf(model: NatsModel): ((subject: string) => boolean) | undefined {
  const channel = model.channels.find((c) => c.id === CHANNEL_ID)
  if (!channel?.address || !channel.tokens) return undefined
  const types = Object.fromEntries(Object.entries(channel.parameters).map(([param, type]) => [param, model.tokenTypes[type]!]))
  const subject = createSubject(channel.address, channel.tokens, types)
  return (s) => subject.matches(s)
}

function disagreements(
  edit: string,
  models: { old: NatsModel; new: NatsModel },
  subjects: { old: ReadonlySet<string>; new: ReadonlySet<string> },
  witnesses: { removed: string[]; added: string[] },
): string[] {
  const out: string[] = []
  const parses = { old: parserOf(models.old), new: parserOf(models.new) }
  for (const version of ['old', 'new'] as const) {
    const parse = parses[version]
    if (!parse) {
      out.push(`edit ${edit}: the ${version} model has no addressed channel "${CHANNEL_ID}"`)
      continue
    }
    const refused = [...subjects[version]].find((s) => !parse(s))
    if (refused !== undefined) out.push(`edit ${edit}: "${refused}" is enumerated for the ${version} channel, whose parser refuses it`)
  }
  const parsedRemoved = parses.new && witnesses.removed.find((s) => parses.new!(s))
  if (parsedRemoved) out.push(`edit ${edit}: "${parsedRemoved}" is a witness that the new channel lost, yet its parser accepts it`)
  const parsedAdded = parses.old && witnesses.added.find((s) => parses.old!(s))
  if (parsedAdded) out.push(`edit ${edit}: "${parsedAdded}" is a witness that the new channel gained, yet the old parser accepts it`)
  return out
}

/** The one report line of a run. */
export function subjectReport(seed: number, stats: SubjectRunStats): string {
  const witnessed = stats.judged - stats.unwitnessed
  return (
    `diff-oracle subjects seed=${seed}: ${stats.pairs} pairs (${stats.byLabel.size} edit kinds), ${stats.skipped} skipped (a version did not compile); ` +
    `witnessed ${witnessed} (publishers ${stats.publisherWitnessed}, subscribers ${stats.subscriberWitnessed}), caught ${stats.caught}, ` +
    `${stats.caughtBreaking} with breaking findings alone; warning used in ${stats.warningUsed} pairs; ` +
    `no difference ${stats.unwitnessed} (flagged anyway ${stats.flaggedWithoutWitness}); violations ${stats.violations.length}`
  )
}
