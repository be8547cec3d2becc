import { join } from 'node:path'
import { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { profileOf, type LoadedFile } from '../load.js'
import type { NatsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): identity O(documents); imports O(documents + imports of the bundle): one backward walk of the import graph from this document. */

function identity(file: LoadedFile): { contract: unknown; version: unknown } {
  const doc = file.source.value
  return { contract: profileOf(doc)?.contract, version: isObject(doc) && isObject(doc.info) ? doc.info.version : undefined }
}

/**
 * "Contract id and info.version are unique in a bundle. Reusing that identity/version with different
 * bytes is rejected": a property of the bundle, so two other documents sharing an identity are
 * found too, whichever document is compiled. One map of identities over the bundle's documents.
 */
export const identityUnique: NatsRule = {
  code: 'NATS_DUPLICATE_IDENTITY',
  description: 'Two documents of the bundle share (contract, info.version) with different bytes (found whichever document is compiled).',
  check(ctx) {
    const mine = identity(ctx.main)
    const first = new Map<string, LoadedFile>()
    const others = [...ctx.input.documents.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
    for (const other of others) {
      const theirs = identity(other)
      if (theirs.contract === mine.contract && theirs.version === mine.version && other.sha256 !== ctx.main.sha256) {
        ctx.report(
          this.code,
          '/x-nats-contract/contract',
          `${other.file} is also contract ${JSON.stringify(mine.contract)} version ${JSON.stringify(mine.version)}, with different bytes; an identity names one document.`,
          { other: other.file },
        )
        continue
      }
      // Between two other documents: reported in the second, by path.
      const key = JSON.stringify([theirs.contract, theirs.version])
      const earlier = first.get(key)
      if (earlier === undefined) first.set(key, other)
      else if (earlier.sha256 !== other.sha256)
        ctx.reportIn(
          other,
          this.code,
          '/x-nats-contract/contract',
          `${earlier.file} is also contract ${JSON.stringify(theirs.contract)} version ${JSON.stringify(theirs.version)}, with different bytes; an identity names one document.`,
          { other: earlier.file },
        )
    }
  },
}

export const importsAgree: NatsRule = {
  code: 'NATS_IMPORT_MISMATCH',
  description: "An import's contract or version is not the imported document's own identity.",
  check(ctx) {
    const root = ctx.input.bundle?.root
    if (!root) return
    for (const [alias, entry] of Object.entries(ctx.section('imports'))) {
      if (!isObject(entry) || typeof entry.path !== 'string') continue
      const doc = ctx.input.documents.get(join(root, ...entry.path.split('/')))
      if (!doc) continue
      const theirs = identity(doc)
      if (theirs.contract !== entry.contract || theirs.version !== entry.version) {
        ctx.report(
          this.code,
          ctx.pointer('x-nats-contract', 'imports', alias),
          `Import ${JSON.stringify(alias)} says ${JSON.stringify(entry.contract)} ${JSON.stringify(entry.version)}, but ${entry.path} is ${JSON.stringify(theirs.contract)} ${JSON.stringify(theirs.version)}.`,
          {
            declared: { contract: entry.contract, version: entry.version },
            actual: theirs,
          },
        )
      }
    }
  },
}

export const importsAcyclic: NatsRule = {
  code: 'NATS_IMPORT_CYCLE',
  description: 'The contract-import graph over the bundle has a cycle.',
  check(ctx) {
    const root = ctx.input.bundle?.root
    if (!root) return
    const files = new Map([[ctx.main.file, ctx.main], ...ctx.input.documents])
    const edges = (file: LoadedFile) =>
      Object.entries(isObject(profileOf(file.source.value)?.imports) ? (profileOf(file.source.value)!.imports as Record<string, unknown>) : {})
        .filter(([, e]) => isObject(e) && typeof e.path === 'string')
        .map(([alias, e]) => ({ alias, target: join(root, ...(e as { path: string }).path.split('/')) }))
    // The documents from which this one can be reached, found once by walking the import edges
    // backwards from it: O(documents + imports of the bundle) in all. (One search per import of
    // this document was O(imports x (documents + imports)).)
    const importers = new Map<string, string[]>()
    for (const [file, loaded] of files)
      for (const { target } of edges(loaded)) {
        const list = importers.get(target)
        if (list) list.push(file)
        else importers.set(target, [file])
      }
    const leadsBack = new Set([ctx.main.file])
    const stack = [ctx.main.file]
    while (stack.length > 0)
      for (const importer of importers.get(stack.pop()!) ?? [])
        if (!leadsBack.has(importer)) {
          leadsBack.add(importer)
          stack.push(importer)
        }
    for (const { alias, target } of edges(ctx.main)) {
      const cycle = leadsBack.has(target)
      if (cycle)
        ctx.report(
          this.code,
          ctx.pointer('x-nats-contract', 'imports', alias),
          `Import ${JSON.stringify(alias)} leads back to this contract; the contract-import graph is acyclic.`,
        )
    }
  },
}

/** The contexts of the other application documents of the bundle, for cross-contract rules. */
export function otherContexts(ctx: NatsContext): NatsContext[] {
  return [...ctx.input.documents.values()].map((main) => new NatsContext({ ...ctx.input, main }))
}
