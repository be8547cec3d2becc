import { escapeToken } from '../runtime/shared/json-pointer.js'

export interface MemberSite {
  /** The member's value. */
  value: unknown
  /** JSON Pointer to the member. */
  pointer: string
}

export interface RefSite {
  /** The `$ref` string. */
  ref: string
  /** JSON Pointer to the `$ref` member. */
  pointer: string
}

/**
 * What one walk of a parsed document finds, kept per value: loading, validation and several rules
 * all ask, and a walk of the whole document each was a tenth of a NATS compile (bench/).
 */
export interface DocumentSites {
  /** Every string-valued `$ref` member, in document order. */
  refs: RefSite[]
  /** Every string-valued `location` member, in document order. */
  locations: MemberSite[]
  /**
   * The member names of every object reached by a member named `bindings`, or held in an object
   * reached by a member named `serverBindings`, `channelBindings`, `operationBindings` or
   * `messageBindings` (the protocols a document binds to, at any depth and position).
   */
  bindingMembers: ReadonlySet<string>
  /** Every string value of a member named `schemaFormat`, in any object. */
  schemaFormats: ReadonlySet<string>
}

const found = new WeakMap<object, DocumentSites>()

/** `serverBindings`, `channelBindings`, `operationBindings`, `messageBindings`. */
const BINDINGS_MAP = /^(?:server|channel|operation|message)Bindings$/

/** The walk behind `documentSites`: each value reached by the tree's paths (a value aliased twice is walked twice). */
function walkSites(root: object): DocumentSites {
  const path: Array<string | number> = []
  const refs: RefSite[] = []
  const locations: MemberSite[] = []
  const bindingMembers = new Set<string>()
  const schemaFormats = new Set<string>()
  const pointerTo = (name: string) => {
    let out = ''
    for (let i = 0; i < path.length; i++) out += '/' + escapeToken(path[i]!)
    return out + '/' + escapeToken(name)
  }
  /** `bound`: `value` is a bindings object (its names are protocols); `map`: its members are. */
  const visit = (value: object, depth: number, bound: boolean, map: boolean): void => {
    // Recursion is bounded: documents are held to the depth limit before anything walks them.
    if (depth > 1024) return
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i]
        if (child === null || typeof child !== 'object') continue
        path.push(i)
        visit(child, depth + 1, false, false)
        path.pop()
      }
      return
    }
    // for-in with an own-property check, not Object.keys: no array per object walked (bench/: a
    // 5,000-channel document has 70,000 objects, and their key arrays were garbage the young
    // generation collected at a price that grows with the document). Inherited names are skipped.
    for (const name in value) {
      if (!Object.hasOwn(value, name)) continue
      if (bound) bindingMembers.add(name)
      const child: unknown = (value as Record<string, unknown>)[name]
      if (typeof child === 'string') {
        if (name === '$ref') refs.push({ ref: child, pointer: pointerTo(name) })
        else if (name === 'location') locations.push({ value: child, pointer: pointerTo(name) })
        else if (name === 'schemaFormat') schemaFormats.add(child)
      } else if (child !== null && typeof child === 'object') {
        path.push(name)
        // `endsWith` first: a regular expression per member showed in the profile.
        visit(child, depth + 1, map || name === 'bindings', name.endsWith('Bindings') && BINDINGS_MAP.test(name))
        path.pop()
      }
    }
  }
  visit(root, 0, false, false)
  return { refs, locations, bindingMembers, schemaFormats }
}

/** What one walk of `root` finds (made on the first question about `root`, then kept). */
export function documentSites(root: object): DocumentSites {
  let sites = found.get(root)
  if (!sites) found.set(root, (sites = walkSites(root)))
  return sites
}

/** What the walk of `root` found when one was made already, else undefined (no walk is made). */
export function knownSites(root: object): DocumentSites | undefined {
  return found.get(root)
}

/** Every string-valued `$ref` member. */
export function refSites(root: unknown): readonly RefSite[] {
  return root !== null && typeof root === 'object' ? documentSites(root).refs : []
}

/** Every string-valued `location` member (AsyncAPI runtime expressions: correlation ids, reply addresses). */
export function locationSites(root: unknown): readonly MemberSite[] {
  return root !== null && typeof root === 'object' ? documentSites(root).locations : []
}
