/**
 * The schema diff's fast paths against the plain walk, on the edit the `contracts diff` bench row
 * measures (bench/diff-edit.ts: a shared `Money` every payload reaches gains a required member,
 * array bounds drop, streams keep messages half as long), at 200 channels: the NATS differ's
 * findings (rules, levels, audiences, locations, sentences, witnesses) must be the same with every
 * fast path on as with all of them off. The fast paths: equal members settled without their
 * locations (pair.ts `equalMember`), changed pairs replayed across payloads (memo-changed.ts),
 * witness candidates checked at their node first, on the accepting and on the refusing side
 * (witness.ts), verdicts kept per payload (accepts.ts), and payloads proven unchanged without the
 * schema diff (nats/diff/unchanged-schema.ts). Each run compiles its own models: the memos are keyed by the documents.
 */
import { writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { editedDocument, fewChannelsEdited } from '../bench/diff-edit.js'
import { natsDocument } from '../bench/generate.js'
import { ContractCompiler } from '../src/core/compile.js'
import { verdictMemo } from '../src/core/diff/schema/accepts.js'
import { changedPairMemo } from '../src/core/diff/schema/memo-changed.js'
import { equalMemberShortcut } from '../src/core/diff/schema/pair.js'
import { witnessPrecheck } from '../src/core/diff/schema/witness.js'
import { unchangedShortcut } from '../src/formats/nats/diff/unchanged-schema.js'
import type { DiffFinding } from '../src/core/diff/types.js'
import { formats, natsFormat } from '../src/formats/index.js'
import { natsDiffer } from '../src/formats/nats/diff/index.js'
import { testFolder } from './helpers/temp-folder.js'

const FAST_PATHS = [equalMemberShortcut, changedPairMemo, witnessPrecheck, verdictMemo, unchangedShortcut]

function setFastPaths(enabled: boolean): void {
  for (const path of FAST_PATHS) path.enabled = enabled
}

afterEach(() => setFastPaths(true))

async function diffFiles(oldFile: string, newFile: string): Promise<DiffFinding[]> {
  const side = async (file: string) => {
    const result = await new ContractCompiler({ formats }).model(file, natsFormat)
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    return { file, model: result.model!, read: (f: string) => readFile(f, 'utf8').catch(() => undefined) }
  }
  return natsDiffer.diff(await side(oldFile), await side(newFile))
}

describe('the schema diff fast paths on the bench edit', () => {
  it('give the findings the plain walk gives, at 200 channels', async () => {
    const dir = testFolder('contracts-diff-fast-')
    const text = natsDocument(200, { payloads: true })
    const oldFile = join(dir, 'old.asyncapi.yaml')
    const newFile = join(dir, 'new.asyncapi.yaml')
    writeFileSync(oldFile, text)
    writeFileSync(newFile, editedDocument(text))

    setFastPaths(false)
    const plain = await diffFiles(oldFile, newFile)
    setFastPaths(true)
    const taken = equalMemberShortcut.taken
    const replays = changedPairMemo.replays
    const refusedAtNode = witnessPrecheck.refusedAtNode
    const unchanged = unchangedShortcut.taken
    const fast = await diffFiles(oldFile, newFile)

    expect(JSON.stringify(fast)).toBe(JSON.stringify(plain))
    // Not vacuous: the payloads that reach `Money` changed, with witnesses, and the fast paths answered.
    const rules = (rule: string) => plain.filter((f) => f.rule === rule).length
    expect(rules('schema-required-added')).toBeGreaterThan(100)
    expect(rules('schema-max-items-decreased')).toBeGreaterThan(50)
    expect(plain.filter((f) => f.data?.witness !== undefined).length).toBeGreaterThan(200)
    expect(equalMemberShortcut.taken - taken).toBeGreaterThan(1000)
    expect(changedPairMemo.replays - replays).toBeGreaterThan(100)
    expect(witnessPrecheck.refusedAtNode - refusedAtNode).toBeGreaterThan(100)
    // Payloads that reach neither the shared Money nor a bound the edit changed are proven unchanged.
    expect(unchangedShortcut.taken - unchanged).toBeGreaterThan(5)
  })

  it("the bench's three-channel edit renames three status values and breaks those channels alone", async () => {
    const dir = testFolder('contracts-diff-few-')
    const text = natsDocument(200, { payloads: true })
    const oldFile = join(dir, 'old.asyncapi.yaml')
    const newFile = join(dir, 'few.asyncapi.yaml')
    const edited = fewChannelsEdited(text)
    writeFileSync(oldFile, text)
    writeFileSync(newFile, edited)
    expect(edited.match(/-renamed\n/g)).toHaveLength(3)
    const unchanged = unchangedShortcut.taken
    const findings = await diffFiles(oldFile, newFile)
    // Every other payload is proven unchanged without its walk, and the findings are the walk's.
    expect(unchangedShortcut.taken - unchanged).toBeGreaterThan(150)
    setFastPaths(false)
    expect(JSON.stringify(await diffFiles(oldFile, newFile))).toBe(JSON.stringify(findings))
    setFastPaths(true)
    const channels = new Set(findings.map((f) => f.data?.channel))
    expect(channels.size).toBe(3)
    expect(findings.every((f) => f.level === 'breaking' && f.rule.startsWith('schema-enum'))).toBe(true)
  })
})
