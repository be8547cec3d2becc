import { splitPointer } from '../../runtime/shared/json-pointer.js'
import { isObject } from './document.js'

/** How many `$ref`s one step may follow before giving up (a reference chain, or a cycle). */
const MAX_HOPS = 32

/** A `#/components/schemas/...` reference followed, step by step, within the component schemas. */
function follow(node: unknown, schemas: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  for (let hops = 0; hops < MAX_HOPS; hops++) {
    if (!isObject(node)) return undefined
    const ref = node.$ref
    if (typeof ref !== 'string') return node
    if (!ref.startsWith('#/components/schemas/')) return undefined
    let target: unknown = schemas
    for (const token of splitPointer(ref.slice('#/components/schemas'.length)))
      target = isObject(target) && Object.hasOwn(target, token) ? target[token] : undefined
    node = target
  }
  return undefined
}

/**
 * The schema of a branch manifest's `input` slot ("A branch manifest is a typed array of
 * {branchId, peerId, input}; branch input bindings ... map to its declared data slot"), so that a
 * `{branch: input}` value is validated against it before dispatch; undefined when the interaction
 * has no manifest or the slot accepts anything. The compile-time rule (NATS_DISPATCH) has already
 * required the manifest to be such an array. `interaction`: its profile entry (`dispatch`, `inputs`).
 * O(reference chain), at most MAX_HOPS per step.
 */
export function branchInputSchema(interaction: Readonly<Record<string, unknown>>, schemas: Readonly<Record<string, unknown>>): unknown {
  const { dispatch, inputs } = interaction
  if (!isObject(dispatch) || (dispatch.mode !== 'branches' && dispatch.mode !== 'none') || typeof dispatch.branchesInput !== 'string') return undefined
  const manifest = isObject(inputs) && Object.hasOwn(inputs, dispatch.branchesInput) ? inputs[dispatch.branchesInput] : undefined
  if (!isObject(manifest) || typeof manifest.schema !== 'string') return undefined
  const array = follow({ $ref: manifest.schema }, schemas)
  const item = follow(array?.items, schemas)
  const properties = isObject(item?.properties) ? item.properties : undefined
  const slot = properties && Object.hasOwn(properties, 'input') ? properties.input : undefined
  if (slot === undefined || slot === true || (isObject(slot) && Object.keys(slot).length === 0)) return undefined
  return slot
}
