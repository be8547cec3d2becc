import { joinPointer } from './json-pointer.js'

export interface RefSite {
  /** The `$ref` string. */
  ref: string
  /** JSON Pointer to the `$ref` member. */
  pointer: string
}

const found = new WeakMap<object, RefSite[]>()

/**
 * Every string-valued `$ref` member in a JSON value, with its pointer, in document order. Pointers
 * are spelled out only for the `$ref` members (a string per node of a 500-channel document showed
 * in the profile, bench/), and the result is kept per value: loading and validation both ask.
 */
export function refSites(root: unknown): readonly RefSite[] {
  if (root === null || typeof root !== 'object') return []
  const cached = found.get(root)
  if (cached) return cached
  const path: Array<string | number> = []
  const out: RefSite[] = []
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
    for (const key in value) {
      const child: unknown = (value as Record<string, unknown>)[key]
      if (key === '$ref' && typeof child === 'string') out.push({ ref: child, pointer: joinPointer('', ...path, key) })
      else if (child !== null && typeof child === 'object') {
        path.push(key)
        visit(child, depth + 1)
        path.pop()
      }
    }
  }
  visit(root, 0)
  found.set(root, out)
  return out
}
