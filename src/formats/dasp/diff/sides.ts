import { dirname, isAbsolute, resolve } from 'node:path'
import type { DiffLocation, DiffSide } from '../../../core/diff/types.js'
import { parseJsonSource, type JsonSource } from '../../../core/json-source.js'
import { joinPointer, splitPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import { identityKey } from '../context.js'
import type { DaspModel } from '../model.js'

/** One document of a version with its positions, under the path it has in that version's tree. */
export interface PositionedDocument {
  /** The path findings name (for a git version, the working-tree path: `DiffSide.file` and what it lists). */
  file: string
  source: JsonSource
  value: Record<string, any>
}

/** A requested extension as the selection writes it, at its index in `extensions`. */
export interface RequestEntry {
  index: number
  uri: string
  version: string
  scope: string
  settings: Record<string, unknown>
  /** Its definition (by exact identity), when one could be read. */
  definition?: PositionedDocument
}

/** What the differ reads of one version: the selection, its requested extensions and their definitions. */
export interface DaspVersion {
  selection: PositionedDocument
  requested: RequestEntry[]
}

/** A local relative path beside the selection (load.ts's rule: never a URL or an absolute path). */
function localPath(from: string, path: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || isAbsolute(path) || path.includes('\\')) return undefined
  return resolve(dirname(from), path)
}

function parse(file: string, text: string | undefined): JsonSource | undefined {
  if (text === undefined) return undefined
  const { source, diagnostics } = parseJsonSource(file, text)
  return diagnostics.length === 0 ? source : undefined
}

const asDocument = (file: string, source: JsonSource | undefined): PositionedDocument | undefined =>
  source && isObject(source.value) ? { file, source, value: source.value as Record<string, any> } : undefined

/**
 * Reads one version. The selection is the compiled one (the model's sources), named by
 * `side.file`. Each definition it lists is read through `side.read` (under `--against`, the git
 * version of that file), and only if that gives nothing from the compile's own copy of the same
 * version. Cost: one parse per definition file.
 */
export async function readVersion(side: DiffSide<DaspModel>): Promise<DaspVersion> {
  const compiled = side.model.sources
  const selectionSource = compiled?.selection ?? parse(side.file, await side.read(side.file))
  const selection = asDocument(side.file, selectionSource) ?? {
    file: side.file,
    source: parseJsonSource(side.file, '{}').source,
    value: {},
  }
  const byIdentity = new Map<string, PositionedDocument>()
  const compiledDefinitions = new Map((compiled?.definitions ?? []).map((d) => [d.index, d.source] as const))
  const entries: unknown[] = Array.isArray(selection.value.definitions) ? selection.value.definitions : []
  const documents = await Promise.all(
    entries.map(async (entry, index) => {
      if (typeof entry !== 'string') return undefined
      const path = localPath(side.file, entry)
      if (!path) return undefined
      const read = parse(path, await side.read(path))
      return asDocument(path, read ?? compiledDefinitions.get(index))
    }),
  )
  for (const document of documents) {
    const identity = document && isObject(document.value.identity) ? document.value.identity : undefined
    if (!identity || typeof identity.uri !== 'string' || typeof identity.version !== 'string') continue
    const key = identityKey(identity.uri, identity.version)
    if (!byIdentity.has(key)) byIdentity.set(key, document!)
  }
  const list: unknown[] = Array.isArray(selection.value.extensions) ? selection.value.extensions : []
  const requested = list.flatMap((e, index): RequestEntry[] =>
    isObject(e) && typeof e.uri === 'string' && typeof e.version === 'string' && typeof e.scope === 'string'
      ? [
          {
            index,
            uri: e.uri,
            version: e.version,
            scope: e.scope,
            settings: isObject(e.settings) ? (e.settings as Record<string, unknown>) : {},
            definition: byIdentity.get(identityKey(e.uri, e.version)),
          },
        ]
      : [],
  )
  return { selection, requested }
}

/**
 * Where `pointer` is in a document: the node itself, or its nearest existing ancestor when the node
 * is not in this version (a member one side lacks), so the location's pointer always names a node.
 */
export function locate(document: PositionedDocument, pointer: string): DiffLocation {
  let node: unknown = document.value
  let found = ''
  for (const token of splitPointer(pointer)) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) break
    node = (node as Record<string, unknown>)[token]
    found = joinPointer(found, token)
  }
  const { line, column } = document.source.locate(found)
  return { file: document.file, pointer: found, line, column }
}
