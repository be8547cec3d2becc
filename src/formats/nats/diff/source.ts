/**
 * One version of the document as the differ reads it: its parsed value with the position of every
 * node. The text comes through `DiffSide.read` (under `--against`, from git), never from the file
 * system directly, and is parsed once per side: O(document).
 */
import type { DiffLocation, DiffSide } from '../../../core/diff/types.js'
import { parseYamlSource } from '../../../core/yaml-source.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import type { NatsModel } from '../model.js'

export interface PositionedDocument {
  file: string
  /** The parsed document (JSON values only); `{}` when the text could not be read. */
  value: unknown
  /** The location of the node at `pointer` (its nearest ancestor when it has none). */
  at(pointer: string): DiffLocation
}

/** The document of one side: its text read once through the side, positions from its YAML (or JSON) source. */
export async function positioned(side: DiffSide<NatsModel>): Promise<PositionedDocument> {
  const file = side.file
  let text: string | undefined
  try {
    text = await side.read(file)
  } catch {
    text = undefined
  }
  if (text === undefined) return { file, value: {}, at: (pointer) => ({ file, pointer, line: 1, column: 1 }) }
  const { source } = parseYamlSource(file, text)
  return {
    file,
    value: source.value ?? {},
    at(pointer) {
      try {
        const { line, column } = source.locate(pointer)
        return { file, pointer, line, column }
      } catch {
        return { file, pointer, line: 1, column: 1 }
      }
    },
  }
}

/** Pointer helpers for the places the differ names. */
export const ptr = {
  channel: (id: string) => joinPointer('', 'channels', id),
  profileChannel: (id: string) => joinPointer('', 'x-nats-contract', 'channels', id),
  operation: (id: string) => joinPointer('', 'operations', id),
  profileOperation: (id: string) => joinPointer('', 'x-nats-contract', 'operations', id),
  profile: (...tokens: Array<string | number>) => joinPointer('', 'x-nats-contract', ...tokens),
  of: (...tokens: Array<string | number>) => joinPointer('', ...tokens),
}
