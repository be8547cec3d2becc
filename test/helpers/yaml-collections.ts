import { joinPointer } from '../../src/runtime/shared/json-pointer.js'

/** The JSON Pointer of every mapping and sequence in a parsed YAML value, in document order (what a reader's recorded positions must cover). */
export function collections(value: unknown, pointer = '', out: string[] = []): string[] {
  if (value === null || typeof value !== 'object') return out
  out.push(pointer)
  if (Array.isArray(value)) value.forEach((v, i) => collections(v, joinPointer(pointer, i), out))
  else for (const [k, v] of Object.entries(value)) collections(v, joinPointer(pointer, k), out)
  return out
}
