import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../document.js'

/**
 * One digest a document pins ("imports.<alias> is {contract, version, path, sha256}"; an external
 * stream's or consumer's and a workflow's `artifact: {path, sha256}`): the file it names, by its
 * bundle path, and where its `sha256` is (or would be) in the document.
 */
export interface Pin {
  kind: 'import' | 'artifact'
  /** The bundle path the pin names (as written: checked by the caller). */
  path: string
  /** JSON Pointer of the object that holds `path` and `sha256`. */
  owner: string
  /** JSON Pointer of the `sha256` member. */
  pointer: string
  /** Whether the object has a `sha256` member at all. */
  present: boolean
  /** The value there (whatever it is: the lock replaces it). */
  value: unknown
}

/**
 * The pins of an application document, read where the bundle reader reads them (load.ts): every
 * import, the artifact of each external stream and consumer, the artifact of each workflow.
 * Entries without a string `path` pin nothing (the checker reports their shape).
 */
export function pinsOf(document: unknown): Pin[] {
  const profile = isObject(document) && isObject(document['x-nats-contract']) ? document['x-nats-contract'] : undefined
  if (!profile) return []
  const pins: Pin[] = []
  const add = (kind: Pin['kind'], owner: string, holder: Record<string, unknown>) => {
    if (typeof holder.path !== 'string') return
    pins.push({ kind, path: holder.path, owner, pointer: joinPointer(owner, 'sha256'), present: Object.hasOwn(holder, 'sha256'), value: holder.sha256 })
  }
  for (const [alias, entry] of Object.entries(isObject(profile.imports) ? profile.imports : {}))
    if (isObject(entry)) add('import', joinPointer('', 'x-nats-contract', 'imports', alias), entry)
  for (const kind of ['streams', 'consumers'] as const)
    for (const [key, resource] of Object.entries(isObject(profile[kind]) ? profile[kind] : {}))
      if (isObject(resource) && resource.authority === 'external' && isObject(resource.artifact))
        add('artifact', joinPointer('', 'x-nats-contract', kind, key, 'artifact'), resource.artifact)
  for (const [key, workflow] of Object.entries(isObject(profile.workflows) ? profile.workflows : {}))
    if (isObject(workflow) && isObject(workflow.artifact)) add('artifact', joinPointer('', 'x-nats-contract', 'workflows', key, 'artifact'), workflow.artifact)
  return pins
}
