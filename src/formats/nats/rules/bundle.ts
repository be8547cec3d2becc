import { join } from 'node:path'
import { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { profileOf, type LoadedFile } from '../load.js'
import { natsRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): identity O(documents); imports O(imports). Import cycles are found while reading the bundle (import-cycles.ts). */

function identity(file: LoadedFile): { contract: unknown; version: unknown } {
  const doc = file.source.value
  return { contract: profileOf(doc)?.contract, version: isObject(doc) && isObject(doc.info) ? doc.info.version : undefined }
}

/**
 * "Contract id and info.version are unique in a bundle. Reusing that identity/version with different
 * bytes is rejected": a property of the bundle, so two other documents sharing an identity are
 * found too, whichever document is compiled. One map of identities over the bundle's documents.
 */
export const identityUnique = natsRule({
  code: 'NATS_DUPLICATE_IDENTITY',
  description: 'Two documents of the bundle share (contract, info.version) with different bytes (found whichever document is compiled).',
  check(ctx, report) {
    const mine = identity(ctx.main)
    const first = new Map<string, LoadedFile>()
    const others = [...ctx.input.documents.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
    for (const other of others) {
      const theirs = identity(other)
      if (theirs.contract === mine.contract && theirs.version === mine.version && other.sha256 !== ctx.main.sha256) {
        report(
          '/x-nats-contract/contract',
          `${other.file} is also contract ${JSON.stringify(mine.contract)} version ${JSON.stringify(mine.version)}, with different bytes; an identity names one document.`,
          { other: other.file },
          [{ in: other, pointer: '/x-nats-contract/contract', message: `The other document with this identity.` }],
        )
        continue
      }
      // Between two other documents: reported in the second, by path.
      const key = JSON.stringify([theirs.contract, theirs.version])
      const earlier = first.get(key)
      if (earlier === undefined) first.set(key, other)
      else if (earlier.sha256 !== other.sha256)
        report.in(
          other,
          '/x-nats-contract/contract',
          `${earlier.file} is also contract ${JSON.stringify(theirs.contract)} version ${JSON.stringify(theirs.version)}, with different bytes; an identity names one document.`,
          { other: earlier.file },
          [{ in: earlier, pointer: '/x-nats-contract/contract', message: `The earlier document with this identity.` }],
        )
    }
  },
})

export const importsAgree = natsRule({
  code: 'NATS_IMPORT_MISMATCH',
  description: "An import's contract or version is not the imported document's own identity.",
  check(ctx, report) {
    const root = ctx.input.bundle?.root
    if (!root) return
    for (const [alias, entry] of Object.entries(ctx.section('imports'))) {
      if (!isObject(entry) || typeof entry.path !== 'string') continue
      const doc = ctx.input.documents.get(join(root, ...entry.path.split('/')))
      if (!doc) continue
      const theirs = identity(doc)
      if (theirs.contract !== entry.contract || theirs.version !== entry.version) {
        report(
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
})

/** The contexts of the other application documents of the bundle, for cross-contract rules. */
export function otherContexts(ctx: NatsContext): NatsContext[] {
  return [...ctx.input.documents.values()].map((main) => new NatsContext({ ...ctx.input, main }))
}

/**
 * The bundle's other application documents with distinct bytes, in path order, and the file each
 * read path stands for: a document whose bytes are the compiled document's, or an earlier one's,
 * is that document at a second path ("Reusing that identity/version with different bytes is
 * rejected": with the same bytes it is the same contract). O(documents).
 */
export function distinctDocuments(ctx: NatsContext): { distinct: LoadedFile[]; canonical: (file: string) => string } {
  const bySha = new Map<string, string>([[ctx.main.sha256, ctx.main.file]])
  const aliases = new Map<string, string>()
  const distinct: LoadedFile[] = []
  for (const doc of [...ctx.input.documents.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
    const first = bySha.get(doc.sha256)
    if (first !== undefined) aliases.set(doc.file, first)
    else {
      bySha.set(doc.sha256, doc.file)
      distinct.push(doc)
    }
  }
  return { distinct, canonical: (file) => aliases.get(file) ?? file }
}
