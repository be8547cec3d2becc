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

/**
 * What the walk found below one object, kept for the objects a re-parse hands back unchanged: a NATS
 * recompile takes every unchanged section and entry of the YAML text from the last parse, as the
 * same objects (yaml-regions.ts), so the walk of a recompiled document walks again only what
 * changed (it was a twelfth of a 500-channel recompile after a one-stream edit). The sites are the
 * walk's own objects, with pointers under `prefix`: the same objects serve a walk that finds the
 * object at the same pointer, and copies re-pointed serve one that finds it elsewhere.
 */
interface KeptSites {
  prefix: string
  refs: RefSite[]
  locations: MemberSite[]
  bindingMembers: string[] | undefined
  schemaFormats: string[] | undefined
}

const kept = new WeakMap<object, KeptSites>()
/** The sites of a kept walk that found none (shared, never added to). */
const NONE: never[] = []

/**
 * The depths whose objects' walks are kept (1: a section's value, 2: its entries): the objects a
 * re-parse takes whole. Deeper, keeping would cost a fresh walk more than it saves a recompile.
 */
const KEPT_DEPTHS = 2

/** The walk behind `documentSites`: each value reached by the tree's paths (a value aliased twice is walked twice). */
function walkSites(root: object): DocumentSites {
  const path: Array<string | number> = []
  const refs: RefSite[] = []
  const locations: MemberSite[] = []
  const bindingMembers = new Set<string>()
  const schemaFormats = new Set<string>()
  /** The kept walks being made (at most KEPT_DEPTHS), for the names and formats found inside them. */
  const open: KeptSites[] = []
  const pointerOf = () => {
    let out = ''
    for (let i = 0; i < path.length; i++) out += '/' + escapeToken(path[i]!)
    return out
  }
  const pointerTo = (name: string) => pointerOf() + '/' + escapeToken(name)
  const bindingMember = (name: string) => {
    bindingMembers.add(name)
    for (const walk of open) (walk.bindingMembers ??= []).push(name)
  }
  const schemaFormat = (format: string) => {
    schemaFormats.add(format)
    for (const walk of open) (walk.schemaFormats ??= []).push(format)
  }
  /** Adds what a kept walk found, under the current pointer. */
  const take = (walk: KeptSites) => {
    if (walk.refs.length > 0 || walk.locations.length > 0) {
      const prefix = pointerOf()
      const same = walk.prefix === prefix
      const at = walk.prefix.length
      for (const site of walk.refs) refs.push(same ? site : { ref: site.ref, pointer: prefix + site.pointer.slice(at) })
      for (const site of walk.locations) locations.push(same ? site : { value: site.value, pointer: prefix + site.pointer.slice(at) })
    }
    if (walk.bindingMembers) for (const name of walk.bindingMembers) bindingMember(name)
    if (walk.schemaFormats) for (const format of walk.schemaFormats) schemaFormat(format)
  }
  /** `bound`: `value` is a bindings object (its names are protocols); `map`: its members are. */
  const visit = (value: object, depth: number, bound: boolean, map: boolean): void => {
    // Outside any bindings, what is found below an object depends on the object alone.
    if (depth >= 1 && depth <= KEPT_DEPTHS && !bound && !map) {
      const known = kept.get(value)
      if (known !== undefined) return take(known)
      const walk: KeptSites = { prefix: '', refs: NONE, locations: NONE, bindingMembers: undefined, schemaFormats: undefined }
      const refsFrom = refs.length
      const locationsFrom = locations.length
      open.push(walk)
      walkInto(value, depth, false, false)
      open.pop()
      // The pointer is made only for a walk that found sites (most entries' members find none).
      if (refs.length > refsFrom || locations.length > locationsFrom) {
        walk.prefix = pointerOf()
        walk.refs = refs.slice(refsFrom)
        walk.locations = locations.slice(locationsFrom)
      }
      kept.set(value, walk)
      return
    }
    walkInto(value, depth, bound, map)
  }
  const walkInto = (value: object, depth: number, bound: boolean, map: boolean): void => {
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
      if (bound) bindingMember(name)
      const child: unknown = (value as Record<string, unknown>)[name]
      if (typeof child === 'string') {
        if (name === '$ref') refs.push({ ref: child, pointer: pointerTo(name) })
        else if (name === 'location') locations.push({ value: child, pointer: pointerTo(name) })
        else if (name === 'schemaFormat') schemaFormat(child)
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

/**
 * The file a `$ref` names, as a path: the part before its first `#` ('' for a same-document
 * reference), percent-decoded, since a `$ref` is a URI reference (JSON Reference; RFC 3986 section
 * 2.1 writes a space in a path as `%20`, `café.json` as `caf%C3%A9.json`). A part that does not
 * decode, or would decode to a NUL, is given as written (it then names no locked file).
 */
export function refFilePath(ref: string): string {
  const hash = ref.indexOf('#')
  const path = hash === -1 ? ref : ref.slice(0, hash)
  if (!path.includes('%')) return path
  try {
    const decoded = decodeURIComponent(path)
    return decoded.includes('\0') ? path : decoded
  } catch {
    return path
  }
}
