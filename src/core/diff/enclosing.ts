/**
 * Where a finding about something one version lacks is located in that version: the node that
 * encloses where it is (or was) in the other, so that every finding has a location in both versions
 * (an annotation on the new file's lines needs one there, and `--against` names one path for both).
 */
import { joinPointer, splitPointer } from '../../runtime/shared/json-pointer.js'

/**
 * The deepest prefix of `pointer` that names a node of `root`, going into no array element: an index
 * is a position, not an identity (after a removal, `/requests/2` of the new version is another entry
 * than the old one's), so a missing thing inside an array is located at the array. O(the pointer's
 * tokens).
 */
export function enclosingPointer(root: unknown, pointer: string): string {
  let node = root
  let found = ''
  for (const token of splitPointer(pointer)) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, token)) break
    node = (node as Record<string, unknown>)[token]
    found = joinPointer(found, token)
  }
  return found
}

/**
 * The deepest prefix of `pointer` that names a node of `root` (array elements included): where a
 * finding about a node of this version is placed when that node itself is gone (a payload removed
 * from a message is located at the message). O(the pointer's tokens).
 */
export function existingPointer(root: unknown, pointer: string): string {
  let node = root
  let found = ''
  for (const token of splitPointer(pointer)) {
    if (node === null || typeof node !== 'object') break
    if (Array.isArray(node) ? !/^(?:0|[1-9][0-9]*)$/.test(token) || Number(token) >= node.length : !Object.hasOwn(node, token)) break
    node = (node as Record<string, unknown>)[token]
    found = joinPointer(found, token)
  }
  return found
}
