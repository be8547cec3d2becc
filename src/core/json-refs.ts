import { joinPointer } from './json-pointer.js'

export interface MemberSite {
  /** The member's value. */
  value: unknown
  /** JSON Pointer to the member. */
  pointer: string
}

/**
 * Every member named `key` whose value passes `accept`, with its pointer, in document order;
 * members under a key in `skip` are not visited. Pointers are spelled out only for what is found:
 * a string per node of a 500-channel document showed in the profile (bench/).
 */
export function findMembers(root: unknown, key: string, accept: (value: unknown) => boolean, skip: ReadonlySet<string> = NO_KEYS): MemberSite[] {
  const path: Array<string | number> = []
  const out: MemberSite[] = []
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
    for (const name of Object.keys(value)) {
      const child: unknown = (value as Record<string, unknown>)[name]
      if (name === key && accept(child)) out.push({ value: child, pointer: joinPointer('', ...path, name) })
      else if (child !== null && typeof child === 'object' && !skip.has(name)) {
        path.push(name)
        visit(child, depth + 1)
        path.pop()
      }
    }
  }
  if (root !== null && typeof root === 'object') visit(root, 0)
  return out
}

const NO_KEYS: ReadonlySet<string> = new Set()

export interface RefSite {
  /** The `$ref` string. */
  ref: string
  /** JSON Pointer to the `$ref` member. */
  pointer: string
}

const found = new WeakMap<object, RefSite[]>()

/** Every string-valued `$ref` member, kept per value: loading and validation both ask. */
export function refSites(root: unknown): readonly RefSite[] {
  if (root === null || typeof root !== 'object') return []
  let sites = found.get(root)
  if (!sites) found.set(root, (sites = findMembers(root, '$ref', (v) => typeof v === 'string').map(({ value, pointer }) => ({ ref: value as string, pointer }))))
  return sites
}
