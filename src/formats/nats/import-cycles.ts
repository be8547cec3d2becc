import { join, relative, sep } from 'node:path'
import { findCycles, type Digraph } from '../../core/graph.js'
import { joinPointer } from '../../runtime/shared/json-pointer.js'
import { isObject } from './document.js'
import type { LoadedFile } from './load.js'

/** One import edge: `alias` of `from` names the document at `target` (absolute paths). */
export interface ImportEdge {
  from: string
  alias: string
  target: string
}

/** A cycle of the contract-import graph, as the edges that make it, in order. */
export type ImportCycle = ImportEdge[]

/** The import edges of a document, by the paths its imports name (digests aside: a cycle is a fact of the paths). */
export function importEdges(doc: LoadedFile, root: string): ImportEdge[] {
  const value = doc.source.value
  const profile = isObject(value) && isObject(value['x-nats-contract']) ? value['x-nats-contract'] : undefined
  const imports = profile && isObject(profile.imports) ? profile.imports : {}
  return Object.keys(imports).flatMap((alias) => {
    const entry = imports[alias]
    return isObject(entry) && typeof entry.path === 'string' ? [{ from: doc.file, alias, target: join(root, ...entry.path.split('/')) }] : []
  })
}

/**
 * The cycles of the contract-import graph that the compiled document reaches ("The contract-import
 * graph is acyclic"): core's cycle finder (src/core/graph.ts) walks depth-first from `main` over the
 * documents read, and every edge back to a document still on the walk's path closes one cycle,
 * given as the path's edges from that document on, then the edge. Iterative (no recursion
 * depth), each document entered once and each edge followed once: O(documents + imports), plus
 * the cycles' own length (each is copied whole: the diagnostic's data names every document).
 */
export function importCycles(main: LoadedFile, documents: ReadonlyMap<string, LoadedFile>, root: string): ImportCycle[] {
  const byFile = new Map([...documents, [main.file, main]])
  const cycles: ImportCycle[] = []
  const graph: Digraph<string, ImportEdge> = {
    edges: (file) => importEdges(byFile.get(file)!, root),
    // An import of a document that was not read leads nowhere here (reading reported it).
    target: (edge) => (byFile.has(edge.target) ? edge.target : undefined),
  }
  findCycles([main.file], graph, (edge, path, from) => cycles.push([...path.edges.slice(from), edge]))
  return cycles
}

/** The documents of a cycle in order, back to the first, by bundle-relative paths. */
export function cycleFiles(cycle: ImportCycle, root: string): string[] {
  const rel = (file: string) => relative(root, file).split(sep).join('/')
  return [...cycle.map((e) => rel(e.from)), rel(cycle.at(-1)!.target)]
}

/** Documents a message names before it elides the middle of a long cycle (the data carries them all). */
const NAMED = 12

/** `payments/... -> orders/... -> payments/...`; a cycle longer than NAMED documents shows its ends. */
export function describeCycle(files: readonly string[]): string {
  if (files.length <= NAMED) return files.join(' -> ')
  const half = NAMED / 2
  return [...files.slice(0, half), `... (${files.length - NAMED} more)`, ...files.slice(-half)].join(' -> ')
}

/** Where a cycle is reported: the import of its first edge, in that edge's file. */
export function cyclePointer(edge: ImportEdge): string {
  return joinPointer('', 'x-nats-contract', 'imports', edge.alias)
}
