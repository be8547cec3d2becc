import { levelFor } from '../../../core/diff/schema-diff-types.js'
import { diffSchemas } from '../../../core/diff/schema-diff.js'
import type { SchemaSide } from '../../../core/diff/schema-diff-types.js'
import { joinPointer, splitPointer } from '../../../runtime/shared/json-pointer.js'
import { CLIENT, type Findings, HOST, quote } from './findings.js'
import { locate, type PositionedDocument } from './sides.js'

/** A definition as a schema side: `$ref`s resolve only inside the same definition (nothing is fetched). */
function schemaSide(d: PositionedDocument, pointer: string): SchemaSide {
  return {
    file: d.file,
    document: d.value,
    pointer,
    resolve(ref) {
      if (!ref.startsWith('#')) return undefined
      const target = decodeURIComponent(ref.slice(1))
      let node: unknown = d.value
      for (const token of splitPointer(target)) {
        if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) return undefined
        node = (node as Record<string, unknown>)[token]
      }
      return { file: d.file, document: d.value, pointer: target }
    },
  }
}

/**
 * An array setting's element schema through the schema engine. The client sends the elements (its
 * request) and the host receives and validates them: each change's effect gives the host the
 * receiver's level and the client the sender's (`levelFor`). The finding's rule is the engine's.
 */
export function compareItemSchemas(a: PositionedDocument, b: PositionedDocument, name: string, uri: string, out: Findings): void {
  const pointer = joinPointer('', 'settings', name, 'items')
  let changes
  try {
    changes = diffSchemas(schemaSide(a, pointer), schemaSide(b, pointer))
  } catch {
    // The engine promises not to throw; if it does, the change is unknown rather than absent.
    changes = [{ rule: 'schema-changed', effect: 'unknown' as const, message: 'The element schema changed and could not be compared.' }]
  }
  for (const change of changes) {
    const where = (d: PositionedDocument, at: { file: string; pointer: string } | undefined) => locate(d, at && at.file === d.file ? at.pointer : pointer)
    out.addByLevel(
      {
        rule: change.rule,
        old: where(a, change.old),
        new: where(b, change.new),
        message: `Setting ${quote(name)} of ${quote(uri)}, element schema: ${change.message}`,
        data: { effect: change.effect, ...(change.witness ? { witness: change.witness } : {}), ...(change.witnesses ? { witnesses: change.witnesses } : {}) },
      },
      [
        { audience: HOST, level: levelFor(change.effect, 'receives') },
        { audience: CLIENT, level: levelFor(change.effect, 'sends') },
      ],
    )
  }
}
