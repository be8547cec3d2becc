/**
 * Both oracles at once, through the NATS differ: two versions of the application document whose
 * channel message payload differs by one random schema edit (the schema oracle's generator, with
 * `$ref`s to component schemas or without), compiled and diffed. The channel has an operation that
 * sends (its publishers send the payload) and one that receives (its subscribers validate it): a
 * value the new payload schema accepts and the old refused must be flagged for subscribers, one the
 * old accepted and the new refuses for publishers.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ContractCompiler } from '../../src/core/compile.js'
import type { DiffFinding, FormatDiffer } from '../../src/core/diff/types.js'
import { formats } from '../../src/formats/index.js'
import type { NatsModel } from '../../src/formats/nats/model.js'
import type { Random } from './diff-oracle-random.js'
import { Acceptance, findWitnesses, randomEdit, randomRefPair, randomSchema, valueUniverse, type SchemaPair } from './diff-oracle-schemas.js'
import { applicationDocument, documentText, flags, type ChannelSpec } from './diff-oracle-subjects.js'
import { modelOf, side } from './diff-oracle-subjects-run.js'

/** The channel every payload pair sits on: its subjects never change. */
const CHANNEL: ChannelSpec = {
  tokens: [{ literal: 'app' }, { param: 'p' }],
  parameters: { p: 'region' },
  tokenTypes: { region: { kind: 'enum', values: ['eu', 'us'] } },
  description: 'Events.',
}

/** `$ref`s of the payload oracle name `#/components/schemas/<name>`, which is where an AsyncAPI document keeps them. */
function documentOf(pair: SchemaPair, version: 'old' | 'new'): ReturnType<typeof applicationDocument> {
  return applicationDocument(CHANNEL, { payload: pair[version], schemas: pair.definitions?.[version] })
}

export interface PayloadRunStats {
  pairs: number
  skipped: number
  skipReasons: string[]
  judged: number
  subscriberWitnessed: number
  publisherWitnessed: number
  unwitnessed: number
  caught: number
  caughtBreaking: number
  warningUsed: number
  byLabel: Map<string, number>
  violations: string[]
}

export interface PayloadRunOptions {
  random: Random
  pairs: number
  folder: string
  differ: FormatDiffer<NatsModel>
  refs: boolean
  compiler?: ContractCompiler
}

export async function runPayloadProperty({
  random,
  pairs,
  folder,
  differ,
  refs,
  compiler = new ContractCompiler({ formats }),
}: PayloadRunOptions): Promise<PayloadRunStats> {
  const acceptance = new Acceptance()
  const universe = valueUniverse()
  const stats: PayloadRunStats = {
    pairs: 0,
    skipped: 0,
    skipReasons: [],
    judged: 0,
    subscriberWitnessed: 0,
    publisherWitnessed: 0,
    unwitnessed: 0,
    caught: 0,
    caughtBreaking: 0,
    warningUsed: 0,
    byLabel: new Map(),
    violations: [],
  }
  for (let i = 0; i < pairs; i++) {
    const pair = refs ? randomRefPair(random, 2) : randomEdit(random, randomSchema(random, 2))
    stats.pairs++
    stats.byLabel.set(pair.edit.label, (stats.byLabel.get(pair.edit.label) ?? 0) + 1)
    const files = { old: join(folder, String(i), 'old', 'asyncapi.yaml'), new: join(folder, String(i), 'new', 'asyncapi.yaml') }
    for (const version of ['old', 'new'] as const) {
      mkdirSync(join(files[version], '..'), { recursive: true })
      writeFileSync(files[version], documentText(documentOf(pair, version)))
    }
    const [before, after] = [await modelOf(compiler, files.old), await modelOf(compiler, files.new)]
    if (!before.model || !after.model) {
      stats.skipped++
      if (stats.skipReasons.length < 5) stats.skipReasons.push(`${pair.edit.label}: ${[...before.errors, ...after.errors].join('; ')}`)
      continue
    }
    stats.judged++
    const context = () => {
      const components = pair.definitions ? ` (components old ${JSON.stringify(pair.definitions.old)} -> new ${JSON.stringify(pair.definitions.new)})` : ''
      const found =
        findings.length === 0
          ? 'no findings'
          : findings.map((f) => `${f.rule} ${f.level} for ${f.audiences.map((a) => a.kind).join('/') || 'nobody'}`).join(', ')
      return `; edit ${pair.edit.label} at "${pair.edit.at}": payload old ${JSON.stringify(pair.old)} -> new ${JSON.stringify(pair.new)}${components}; the differ reported ${found}`
    }
    let findings: DiffFinding[] = []
    try {
      findings = await differ.diff(side(files.old, before.model), side(files.new, after.model))
    } catch (error) {
      stats.violations.push(`the differ threw ${String(error)}${context()}`)
      continue
    }
    const witnesses = findWitnesses(acceptance, pair, universe)
    const subscribers = flags(findings, 'subscriber')
    const publishers = flags(findings, 'publisher')
    if ([...subscribers, ...publishers].some((f) => f.level === 'warning')) stats.warningUsed++
    const widened = witnesses.widening[0]
    const narrowed = witnesses.narrowing[0]
    if (widened !== undefined) stats.subscriberWitnessed++
    if (narrowed !== undefined) stats.publisherWitnessed++
    if (widened === undefined && narrowed === undefined) {
      stats.unwitnessed++
      continue
    }
    let caught = true
    if (widened !== undefined && subscribers.length === 0) {
      caught = false
      stats.violations.push(
        `subscribers break unflagged: the payload ${JSON.stringify(widened)} is accepted by the new schema and refused by the old${context()}`,
      )
    }
    if (narrowed !== undefined && publishers.length === 0) {
      caught = false
      stats.violations.push(
        `publishers break unflagged: the payload ${JSON.stringify(narrowed)} is accepted by the old schema and refused by the new${context()}`,
      )
    }
    if (caught) stats.caught++
    const breaking = (list: DiffFinding[]) => list.some((f) => f.level === 'breaking')
    if ((widened === undefined || breaking(subscribers)) && (narrowed === undefined || breaking(publishers))) stats.caughtBreaking++
  }
  return stats
}

export function payloadReport(seed: number, refs: boolean, stats: PayloadRunStats): string {
  return (
    `diff-oracle payloads${refs ? ' ($refs)' : ''} seed=${seed}: ${stats.pairs} pairs (${stats.byLabel.size} edit kinds), ${stats.skipped} skipped (a version did not compile); ` +
    `witnessed ${stats.judged - stats.unwitnessed} (subscribers ${stats.subscriberWitnessed}, publishers ${stats.publisherWitnessed}), caught ${stats.caught}, ` +
    `${stats.caughtBreaking} with breaking findings alone; warning used in ${stats.warningUsed} pairs; no difference ${stats.unwitnessed}; violations ${stats.violations.length}`
  )
}
