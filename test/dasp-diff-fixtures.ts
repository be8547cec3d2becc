/** The DASP diff tests' fixtures: a base selection with two definitions, and versions of it made by edits. */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { findNodeAtLocation, parseTree } from 'jsonc-parser'
import { ContractCompiler } from '../src/core/compile.js'
import type { DiffFinding, DiffSide } from '../src/core/diff/types.js'
import { daspDiffer } from '../src/formats/dasp/diff/index.js'
import type { DaspModel } from '../src/formats/dasp/model.js'
import { daspFormat, formats } from '../src/formats/index.js'
import { splitPointer } from '../src/runtime/shared/json-pointer.js'

export const BASE = join(import.meta.dirname, '../fixtures/diff/dasp/base')
/** The three documents of a version, by the names the cases use. */
export const FILES = { app: 'app.dasp.json', enc: 'extensions/enc.dasp-ext.json', auth: 'extensions/auth.dasp-ext.json' } as const
export type FileName = keyof typeof FILES

/**
 * One edit of a version: set `value` at `pointer` (an object member or an array index; `-` appends),
 * `remove` it, or `reverse` the object or array there (a change of order only).
 */
export interface Edit {
  file: FileName
  pointer: string
  value?: unknown
  remove?: true
  reverse?: true
}

function apply(document: unknown, edit: Edit): void {
  const tokens = splitPointer(edit.pointer)
  const last = tokens.pop()!
  let parent = document as Record<string, unknown>
  for (const token of tokens) parent = parent[token] as Record<string, unknown>
  if (edit.reverse) {
    const target = parent[last] as Record<string, unknown> | unknown[]
    parent[last] = Array.isArray(target) ? [...target].reverse() : Object.fromEntries(Object.entries(target).reverse())
  } else if (edit.remove) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1)
    else delete parent[last]
  } else if (Array.isArray(parent) && last === '-') parent.push(edit.value)
  else parent[last] = edit.value
}

/** A version in `dir`: the base with `edits` applied; its selection's path. */
export function makeVersion(dir: string, edits: readonly Edit[] = []): string {
  mkdirSync(dir, { recursive: true })
  cpSync(BASE, dir, { recursive: true })
  for (const name of Object.keys(FILES) as FileName[]) {
    const mine = edits.filter((e) => e.file === name)
    if (mine.length === 0) continue
    const path = join(dir, FILES[name])
    const document = JSON.parse(readFileSync(path, 'utf8'))
    for (const edit of mine) apply(document, edit)
    writeFileSync(path, JSON.stringify(document, null, 2) + '\n')
  }
  return join(dir, FILES.app)
}

const compiler = new ContractCompiler({ formats })

/** A compiled version as the differ receives it; its errors thrown (a case must compile). */
export async function side(file: string): Promise<DiffSide<DaspModel>> {
  const result = await compiler.model(file, daspFormat)
  if (!result.model) throw new Error(`${file} does not compile: ${JSON.stringify(result.diagnostics.map((d) => [d.code, d.pointer, d.message]))}`)
  return { file, model: result.model, read: (path) => readFile(path, 'utf8').catch(() => undefined) }
}

/** The model, or undefined when the version does not compile (the random edits of the oracle may not). */
export async function sideIfValid(file: string): Promise<DiffSide<DaspModel> | undefined> {
  const result = await compiler.model(file, daspFormat)
  return result.model ? { file, model: result.model, read: (path) => readFile(path, 'utf8').catch(() => undefined) } : undefined
}

export async function diffVersions(
  dir: string,
  oldEdits: readonly Edit[],
  newEdits: readonly Edit[],
): Promise<{ findings: DiffFinding[]; old: string; next: string }> {
  const old = makeVersion(join(dir, 'old'), oldEdits)
  const next = makeVersion(join(dir, 'new'), newEdits)
  return { findings: await daspDiffer.diff(await side(old), await side(next)), old, next }
}

/**
 * Line and column of the node at `pointer`, found apart from the differ (jsonc-parser's tree; the
 * column counts UTF-16 code units from 1), to check each finding's position against.
 */
export function position(file: string, pointer: string): { line: number; column: number } {
  const text = readFileSync(file, 'utf8')
  const path = splitPointer(pointer).map((t) => (/^\d+$/.test(t) ? Number(t) : t))
  const root = parseTree(text)!
  const node = path.length === 0 ? root : findNodeAtLocation(root, path)
  if (!node) throw new Error(`${pointer} is not in ${file}`)
  const before = text.slice(0, node.offset)
  const line = before.split('\n').length
  return { line, column: node.offset - before.lastIndexOf('\n') }
}
