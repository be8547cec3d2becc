import { joinPointer } from '../runtime/shared/json-pointer.js'

export interface MemberSite {
  /** The member's value. */
  value: unknown
  /** JSON Pointer to the member. */
  pointer: string
}

/**
 * Every member whose name is a key of `accept` and whose value passes that key's test, with its
 * pointer, in document order, grouped by name; one walk for all of them. Pointers are spelled out
 * only for what is found: a string per node of a 500-channel document showed in the profile (bench/).
 */
export function findMembers<K extends string>(root: unknown, accept: Readonly<Record<K, (value: unknown) => boolean>>): Record<K, MemberSite[]> {
  const path: Array<string | number> = []
  const out = Object.create(null) as Record<K, MemberSite[]>
  for (const key of Object.keys(accept) as K[]) out[key] = []
  const visit = (value: object, depth: number): void => {
    // Recursion is bounded: documents are held to the depth limit before anything walks them.
    if (depth > 1024) return
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i]
        if (child === null || typeof child !== 'object') continue
        path.push(i)
        visit(child, depth + 1)
        path.pop()
      }
      return
    }
    // for-in with an own-property check, not Object.keys: no array per object walked (bench/: a
    // 5,000-channel document has 70,000 objects, and their key arrays were garbage the young
    // generation collected at a price that grows with the document). Inherited names are skipped.
    for (const name in value) {
      if (!Object.hasOwn(value, name)) continue
      const child: unknown = (value as Record<string, unknown>)[name]
      if (Object.hasOwn(accept, name) && accept[name as K](child)) out[name as K].push({ value: child, pointer: joinPointer('', ...path, name) })
      else if (child !== null && typeof child === 'object') {
        path.push(name)
        visit(child, depth + 1)
        path.pop()
      }
    }
  }
  if (root !== null && typeof root === 'object') visit(root, 0)
  return out
}

export interface RefSite {
  /** The `$ref` string. */
  ref: string
  /** JSON Pointer to the `$ref` member. */
  pointer: string
}

const isString = (value: unknown) => typeof value === 'string'
const found = new WeakMap<object, { refs: RefSite[]; locations: MemberSite[] }>()

/** Every string-valued `$ref` member and every string-valued `location` member, from one walk kept per value (loading and validation both ask). */
function stringSites(root: object): { refs: RefSite[]; locations: MemberSite[] } {
  let sites = found.get(root)
  if (!sites) {
    const members = findMembers(root, { $ref: isString, location: isString })
    found.set(root, (sites = { refs: members.$ref.map(({ value, pointer }) => ({ ref: value as string, pointer })), locations: members.location }))
  }
  return sites
}

/** Every string-valued `$ref` member. */
export function refSites(root: unknown): readonly RefSite[] {
  return root !== null && typeof root === 'object' ? stringSites(root).refs : []
}

/** Every string-valued `location` member (AsyncAPI runtime expressions: correlation ids, reply addresses). */
export function locationSites(root: unknown): readonly MemberSite[] {
  return root !== null && typeof root === 'object' ? stringSites(root).locations : []
}
